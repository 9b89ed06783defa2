// What the scale scenarios share: timed requests, outcome batches, the service child's RSS.
import { readFileSync } from 'node:fs';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** One GET; `status` 0 when the request failed (refused, reset). fetch keeps its connection alive between calls. */
export async function timed(url: string): Promise<{ ms: number; body: string; status: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    const body = await res.text();
    return { ms: performance.now() - started, body, status: res.status };
  } catch {
    return { ms: performance.now() - started, body: '', status: 0 };
  }
}

export async function post(url: string, outcomes: object[]): Promise<number> {
  try {
    const res = await fetch(`${url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }), signal: AbortSignal.timeout(60_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0; // no answer within a minute (or refused): counted under status 0
  }
}

let seq = 0;
/** `count` outcomes completed half a second ago, over channels `names(n % modulo)`, one in 17 a failure. */
export function outcomesFor(names: (i: number) => string, count: number, modulo: number) {
  const now = Date.now();
  return Array.from({ length: count }, () => {
    const n = ++seq;
    return { channel: names(n % modulo), requestId: `s${n}`, status: n % 17 === 0 ? 'failure' : 'success', at: now - 500 };
  });
}

/** Posts `perSec` outcomes a second over `channels` channels, in tenths, until `until()`. */
export async function ingest(url: string, channels: number, perSec: number, until: () => boolean): Promise<void> {
  while (!until()) {
    const tickStart = Date.now();
    await post(url, outcomesFor((n) => `ch${n}`, perSec / 10, channels));
    await sleep(Math.max(0, 100 - (Date.now() - tickStart)));
  }
}

/** /healthz every 50 ms and the child's RSS, until stopped. */
export function watchHealth(url: string, pid: number) {
  const ms: number[] = [];
  let failures = 0;
  let maxRss = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const res = await timed(`${url}/healthz`);
      if (res.status === 200) ms.push(res.ms);
      else failures++;
      maxRss = Math.max(maxRss, rssMb(pid));
      await sleep(50);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
      return { ms, failures, maxRssMb: maxRss };
    },
  };
}
