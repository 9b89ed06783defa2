// The kit's promises under a randomized fault schedule (test/support/kitFaultSchedule.ts): three instances run
// callbacks and locks while Redis stalls, restarts empty and PostgreSQL sessions are killed. With a kit database no
// handler completes twice, no two holders overlap and fences rise; without one, the same operations under Redis
// stalls fail closed (errors) and never run a handler twice. The seed is printed with any failure; set
// KIT_FAULT_SEED to replay its fault schedule. The long run is in bench:faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../history/databases.js';
import { runKitFaultSchedule, type KitScheduleReport } from '../support/kitFaultSchedule.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

const seed = Number(process.env.KIT_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

function explain(report: KitScheduleReport): string {
  return `seed ${report.seed} (KIT_FAULT_SEED=${report.seed} replays it)\nfaults:\n  ${report.faults.join('\n  ')}\nviolations:\n  ${report.violations.slice(0, 20).join('\n  ')}`;
}

let redis: LocalRedis;
let database: TestDatabase;
beforeAll(async () => {
  redis = await startRedis();
  database = await createTestDatabase();
});
afterAll(async () => {
  await redis?.stop();
  await database?.drop();
});

describe('kit under a randomized fault schedule', () => {
  it('with a kit database: no double run, no overlapping holders, rising fences', async () => {
    const report = await runKitFaultSchedule({
      seed,
      durationMs: 6_000,
      redis,
      databaseUrl: database.url,
      faults: ['redis-stall', 'redis-restart-empty', 'pg-terminate'],
      stallMs: [1_000, 2_000],
    });
    expect(report.violations, explain(report)).toEqual([]);
    expect(report.faults.length, explain(report)).toBeGreaterThan(0);
    expect(report.handlerRuns, explain(report)).toBeGreaterThan(10);
  }, 40_000);

  it('without a kit database: Redis stalls make the kit fail closed, never run a handler twice', async () => {
    const report = await runKitFaultSchedule({ seed, durationMs: 5_000, redis, faults: ['redis-stall'], stallMs: [1_000, 2_000] });
    expect(report.violations, explain(report)).toEqual([]);
    expect(report.errors, explain(report)).toBeGreaterThan(0);
    expect(report.handlerRuns, explain(report)).toBeGreaterThan(10);
  }, 40_000);
});
