// `paypulse simulate --target URL`: the demo's traffic, sent over HTTP to any running service.
import { createTraffic } from '../sim/traffic.js';

export interface SimulateOptions {
  target: string;
  token?: string;
  seed?: number;
  volume?: number;
  durationSec?: number;
  incidentEverySec?: number;
}

export async function runSimulate(options: SimulateOptions): Promise<void> {
  const traffic = createTraffic({ seed: options.seed ?? 1, volume: options.volume, incidentEveryMs: (options.incidentEverySec ?? 180) * 1000 });
  const url = new URL('/v1/outcomes', options.target).toString();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const endAt = options.durationSec ? Date.now() + options.durationSec * 1000 : Infinity;
  let last = Date.now();
  let sent = 0;
  let stopping = false;
  process.once('SIGINT', () => (stopping = true));
  console.log(`sending simulated outcomes to ${url}`);
  while (!stopping && Date.now() < endAt) {
    await new Promise((r) => setTimeout(r, 250));
    const now = Date.now();
    const outcomes = traffic.between(last, now);
    last = now;
    if (outcomes.length === 0) continue;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ outcomes }) });
    if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
    sent += outcomes.length;
    if (process.stdout.isTTY) process.stdout.write(`\r${sent.toLocaleString('en')} outcomes sent`);
  }
  process.stdout.write('\n');
}
