// `npm run bench:kit [-- --quick]`; KIT_BENCH_REDIS_URL measures against a Redis of your own (never flushed).
import { runKitBench } from './kitBench.js';

await runKitBench({ quick: process.argv.includes('--quick'), redisUrl: process.env.KIT_BENCH_REDIS_URL });
