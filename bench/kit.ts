// Runs the kit benchmark without the CLI: `npx tsx bench/kit.ts [--quick]` (the CLI's `paypulse bench kit`
// calls the same runKitBench). Never part of `npm test`.
import { runKitBench } from '../src/kit/bench.js';

await runKitBench({ quick: process.argv.includes('--quick'), redisUrl: process.env.KIT_BENCH_REDIS_URL });
