// A real Redis Sentinel deployment for tests: a primary, one replica and three `redis-sentinel` processes
// (Debian's redis-sentinel), each on a free port with its own folder, all killed by stop().
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedis, type LocalRedis } from './redisServer.js';

export interface SentinelGroup {
  primaryName: string;
  /** `redis+sentinel://127.0.0.1:<p1>,…/<name>` */
  url: string;
  sentinelPorts: number[];
  servers: LocalRedis[];
  /** Port of the server the Sentinels name as primary now. */
  primaryPort(): number;
  /** SENTINEL FAILOVER: promotes the replica without waiting for the primary to fail. */
  failover(): void;
  /** Resolves once the Sentinels name a new primary, the old one replicates from it and the new one has a replica. */
  waitForPrimaryOtherThan(port: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

function cli(port: number, ...args: string[]): string {
  const run = spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`redis-cli -p ${port} ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`sentinel group: ${what} not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const safely = (work: () => string): string => {
  try {
    return work();
  } catch {
    return '';
  }
};

export async function startSentinelGroup(primaryName = 'mymaster'): Promise<SentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), 'paypulse-sentinel-'));
  const primary = await startRedis();
  const replica = await startRedis(['--replicaof', '127.0.0.1', String(primary.port)]);
  const servers = [primary, replica];
  const sentinels: ChildProcess[] = [];
  const sentinelPorts: number[] = [];
  const stop = async () => {
    await Promise.all(
      sentinels.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.ref();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const linkUp = () => safely(() => cli(replica.port, 'INFO', 'replication')).includes('master_link_status:up');
    await until('replica in sync', linkUp, 15_000);
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      // Small timings keep the failover test fast; the Sentinels rewrite this file, so it lives in our folder.
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${primaryName} 127.0.0.1 ${primary.port} 2`,
          `sentinel down-after-milliseconds ${primaryName} 1000`,
          `sentinel failover-timeout ${primaryName} 5000`,
          `sentinel parallel-syncs ${primaryName} 1`,
          '',
        ].join('\n'),
      );
      const child = spawn('redis-sentinel', [conf], { stdio: 'ignore' });
      child.unref();
      sentinels.push(child);
      sentinelPorts.push(port);
    }
    const sees = (port: number) => {
      const replicas = safely(() => cli(port, 'SENTINEL', 'REPLICAS', primaryName));
      const others = safely(() => cli(port, 'SENTINEL', 'SENTINELS', primaryName));
      return replicas.includes(String(replica.port)) && (others.match(/^ip$/gm) ?? []).length >= 2;
    };
    await until('sentinels see the replica and each other', () => sentinelPorts.every(sees), 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  const primaryPort = () => Number(cli(sentinelPorts[0], 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', primaryName).trim().split('\n')[1]);
  return {
    primaryName,
    url: `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${primaryName}`,
    sentinelPorts,
    servers,
    primaryPort,
    failover: () => void cli(sentinelPorts[0], 'SENTINEL', 'FAILOVER', primaryName),
    async waitForPrimaryOtherThan(port, timeoutMs = 30_000) {
      let next = port;
      await until(
        'failover complete',
        () => {
          next = safely(() => String(primaryPort())) ? primaryPort() : port;
          if (next === port) return false;
          const role = safely(() => cli(port, 'INFO', 'replication'));
          return role.includes('role:slave') && role.includes(`master_port:${next}`) && role.includes('master_link_status:up');
        },
        timeoutMs,
      );
      return next;
    },
    stop,
  };
}
