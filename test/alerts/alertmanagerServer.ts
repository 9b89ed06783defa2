// A real Alertmanager (Debian's prometheus-alertmanager) of the test's own: a free port, no cluster
// gossip (`--cluster.listen-address=` empty), its own storage folder, killed and removed by stop().
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/redisServer.js';

export interface LocalAlertmanager {
  url: string;
  alerts(): Promise<Array<{ labels: Record<string, string>; annotations: Record<string, string>; startsAt: string; endsAt: string; generatorURL: string; status: { state: string } }>>;
  stop(): Promise<void>;
}

const config = `route:
  receiver: nobody
  group_wait: 1h
receivers:
  - name: nobody
`;

export async function startAlertmanager(): Promise<LocalAlertmanager> {
  const dir = mkdtempSync(join(tmpdir(), 'paypulse-am-'));
  writeFileSync(join(dir, 'alertmanager.yml'), config);
  const port = await freePort();
  const child = spawn('/usr/bin/prometheus-alertmanager', [
    `--config.file=${join(dir, 'alertmanager.yml')}`,
    `--storage.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=',
    '--log.level=warn',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`alertmanager did not start: ${stderr.slice(-500)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    alerts: async () => (await fetch(`${url}/api/v2/alerts`)).json(),
    stop,
  };
}
