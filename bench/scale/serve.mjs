// The scale benchmark's service, as users run it: the built package (`npm run build`), plain Node, no
// TypeScript loader in the process (tsx holds memory users never pay:
// docs/decisions/066-embedded-postgres-from-a-template-folder.md).
// Prints `{"url": …}` once listening; SIGTERM closes it. Profiles come from Node's own --cpu-prof and
// --heap-prof flags (bench/scale/run.ts passes them for BENCH_SCALE_PROFILE_DIR).
import { existsSync } from 'node:fs';

const entry = new URL('../../dist/server/index.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('bench/scale/serve.mjs: dist/ is missing; run `npm run build` first (npm run bench:scale does)');
  process.exit(1);
}
const { defaultConfig, startService } = await import(entry.href);
const service = await startService({
  ...defaultConfig,
  port: 0,
  redisUrl: process.env.BENCH_REDIS_URL || undefined,
  namespace: process.env.BENCH_NAMESPACE || `scale${process.pid}`,
  logLevel: 'warn',
  historyIntervalMs: Number(process.env.BENCH_HISTORY_INTERVAL_MS) || defaultConfig.historyIntervalMs,
});
process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
