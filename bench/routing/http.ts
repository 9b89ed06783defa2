// The service's decision rate: POST /v1/route against GET /healthz, requests/s with autocannon, in pairs
// taken back to back on the same service (a child process, as in production, so autocannon's CPU is not
// charged to it); the median of the pairs' ratios is the number. Bar: route ≥ 50 % of healthz.
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { defaultConfig } from '../../src/server/config.js';
import { startService } from '../../src/server/service.js';
import type { Outcome } from '../../src/types.js';
import { startServiceChild, stopServiceChild } from '../support/serviceChild.js';

const seconds = Number(process.env.BENCH_ROUTE_SECONDS ?? 3);
const pairs = Number(process.env.BENCH_ROUTE_PAIRS ?? 5);
const connections = 32;
const candidates = ['acq-a', 'acq-b', 'acq-c', 'acq-d'];

/** Child mode: the service with routing on, a minute of outcomes recorded, its URL printed. */
async function serveChild(): Promise<void> {
  const service = await startService({ ...defaultConfig, port: 0, namespace: `rbench${process.pid}`, logLevel: 'warn', routing: {} });
  const now = Date.now();
  const outcomes: Outcome[] = [];
  for (let i = 0; i < 4000; i++) {
    const channel = candidates[i % 4]!;
    outcomes.push({ channel, requestId: `seed-${i}`, status: i % 17 === 0 ? 'failure' : 'success', at: now - (i % 50_000), dims: { method: i % 3 ? 'card' : 'wallet' } });
  }
  await service.pulse.recordMany(outcomes);
  process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
  process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
}

const startChild = () => startServiceChild(fileURLToPath(import.meta.url));

async function rate(url: string, request: autocannon.Request): Promise<{ rps: number; p99Ms: number }> {
  const r = await autocannon({ url, connections, duration: seconds, requests: [request] });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${request.path}: ${r.non2xx} non-2xx answers, ${r.errors} errors — the numbers would lie`);
  return { rps: r.requests.average, p99Ms: r.latency.p99 };
}

export interface RouteHttpResult {
  healthzRps: number;
  routeRps: number;
  routeP99Ms: number;
  ratio: number;
  pairs: Array<{ healthz: number; route: number }>;
}

export async function measureRouteHttp(): Promise<RouteHttpResult> {
  const { url, child } = await startChild();
  try {
    const body = JSON.stringify({ candidates, dims: { method: 'card' }, amount: 42.5 });
    const route: autocannon.Request = { method: 'POST', path: '/v1/route', headers: { 'content-type': 'application/json' }, body };
    const healthz: autocannon.Request = { method: 'GET', path: '/healthz' };
    await rate(url, route); // warm-up: JIT, connection pools
    const measured: Array<{ healthz: number; route: number; p99: number }> = [];
    for (let i = 0; i < pairs; i++) {
      const h = await rate(url, healthz);
      const r = await rate(url, route);
      measured.push({ healthz: h.rps, route: r.rps, p99: r.p99Ms });
    }
    const ratios = measured.map((p) => p.route / p.healthz).sort((a, b) => a - b);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return {
      healthzRps: median(measured.map((p) => p.healthz)),
      routeRps: median(measured.map((p) => p.route)),
      routeP99Ms: median(measured.map((p) => p.p99)),
      ratio: ratios[Math.floor(ratios.length / 2)]!,
      pairs: measured.map(({ healthz, route }) => ({ healthz, route })),
    };
  } finally {
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

if (process.argv.includes('--serve')) await serveChild();
