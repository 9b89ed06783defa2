// Child process of spill.test.ts: records outcomes while Redis is down (each one answered `buffered` only once
// it is in the journal) and prints how many were acknowledged so far, until the test SIGKILLs it.
import { systemClock } from '../../src/clock.js';
import { openSpillingEngine } from './spillingEngine.js';

const [redisUrl, dataDir, namespace] = process.argv.slice(2);
const { engine } = await openSpillingEngine({ redisUrl, dataDir, namespace, clock: systemClock });
let next = 0;
let acknowledged = 0;
for (;;) {
  const at = Date.now() - 1_000;
  const batch = Array.from({ length: 50 }, () => ({ channel: 'alipay', requestId: `k${next++}`, status: 'success' as const, at }));
  const result = await engine.recordMany(batch);
  acknowledged += result.accepted + result.buffered;
  process.stdout.write(`${acknowledged} ${result.buffered} ${result.dropped}\n`);
}
