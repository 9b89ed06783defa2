// The kit's rows of `npm run bench:faults` (run alone with `-- --kit`): the fault schedule of
// test/kit/faultSchedule.test.ts, longer and over several seeds. Three kit instances (separate clients, one
// namespace) run callbacks on a few keys and locks on a few resources with 100–400 ms TTLs while one fault
// kind repeats; the history is checked for a key's handler completing twice, overlapping holders and fences that
// do not rise. Errors are fail-closed answers (PP_ERR_STORE_UNAVAILABLE): the kit refused rather than guessed.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatTable } from '../support/report.js';
import { createTestDatabase } from '../../test/history/databases.js';
import { runKitFaultSchedule, type KitFault, type KitScheduleReport } from '../../test/support/kitFaultSchedule.js';
import { startRedis } from '../../test/support/redisServer.js';

const durationMs = 60_000;

interface KitScenario {
  name: string;
  kitDatabase: boolean;
  faults: KitFault[];
  seeds: number[];
}

const stallMs: [number, number] = [12_000, 12_000];

const scenarios: KitScenario[] = [
  { name: 'kit: Redis stall 12 s', kitDatabase: true, faults: ['redis-stall'], seeds: [1, 2] },
  { name: 'kit: Redis restart empty', kitDatabase: true, faults: ['redis-restart-empty'], seeds: [3, 4] },
  { name: 'kit: PostgreSQL sessions killed', kitDatabase: true, faults: ['pg-terminate'], seeds: [5] },
  { name: 'kit, no kit database: Redis stall 12 s', kitDatabase: false, faults: ['redis-stall'], seeds: [6] },
  { name: 'kit, no kit database: Redis restart empty', kitDatabase: false, faults: ['redis-restart-empty'], seeds: [7] },
];

async function runOnce(scenario: KitScenario, seed: number): Promise<KitScheduleReport> {
  const redis = await startRedis();
  const database = scenario.kitDatabase ? await createTestDatabase() : undefined;
  try {
    return await runKitFaultSchedule({
      seed,
      durationMs,
      redis,
      faults: scenario.faults,
      stallMs,
      // A 12 s stall, then a few seconds of work, before the next fault.
      faultGapMs: [2_000, 5_000],
      ...(database ? { databaseUrl: database.url } : {}),
    });
  } finally {
    await redis.stop();
    await database?.drop();
  }
}

export async function runKitScenarios(): Promise<string> {
  const rows = [];
  for (const scenario of scenarios) {
    const reports: KitScheduleReport[] = [];
    for (const seed of scenario.seeds) reports.push(await runOnce(scenario, seed));
    const sum = (pick: (r: KitScheduleReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
    rows.push({
      scenario: scenario.name,
      seeds: scenario.seeds,
      faults: sum((r) => r.faults.length),
      operations: sum((r) => r.operations),
      handlerRuns: sum((r) => r.handlerRuns),
      lockHoldings: sum((r) => r.lockHoldings),
      doubleRuns: sum((r) => r.doubleRuns),
      overlappingHolders: sum((r) => r.overlappingHolders),
      fenceRegressions: sum((r) => r.fenceRegressions),
      errors: sum((r) => r.errors),
      violations: reports.flatMap((r) => r.violations).slice(0, 20),
    });
  }
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  writeFileSync(`${dir}kit-latest.json`, `${JSON.stringify({ durationMs, stallMs, rows }, null, 2)}\n`);
  return formatTable(
    ['fault', 'seeds × 60 s', 'faults', 'operations', 'handler runs', 'lock holdings', 'double runs', 'overlapping holders', 'fence regressions', 'errors (fail-closed)'],
    rows.map((r) => [r.scenario, String(r.seeds.length), String(r.faults), String(r.operations), String(r.handlerRuns), String(r.lockHoldings), String(r.doubleRuns), String(r.overlappingHolders), String(r.fenceRegressions), String(r.errors)]),
  );
}
