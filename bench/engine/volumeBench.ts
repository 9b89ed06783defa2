// `npm run bench`: the seed's design, `zset` and the default `buckets` at every per-channel volume,
// then a whole dedup horizon of traffic; prints the tables and writes bench/engine/results/latest.json.
import { writeLatestResult } from '../support/results.js';
import { steadyTable, sweepTable, usageTable } from './sweepReport.js';
import { volumePoints } from './traffic.js';
import { runSteady, runSweep, type SweepOptions } from './volumeSweep.js';

export async function runVolumeBench(options: Partial<SweepOptions> = {}) {
  const o: SweepOptions = {
    lanes: ['seed', 'zset', 'buckets'],
    eventsPerPoint: 120_000,
    repeats: 2,
    points: volumePoints,
    steadyChannels: 1,
    writers: 4,
    batch: 500,
    warmUpQueries: 200,
    queries: 5000,
    diagnose: false,
    log: (line) => console.log(line),
    ...options,
  };
  if (!o.lanes.includes('seed')) throw new Error('the seed lane is the baseline of every ratio: keep it in --lanes');
  const began = Date.now();
  const sweep = await runSweep(o);
  const steady = await runSteady(o);
  o.log('');
  o.log(sweepTable(sweep, o.lanes));
  o.log('');
  o.log(steadyTable(steady, o.lanes));
  if (o.diagnose) {
    o.log('');
    for (const p of sweep) o.log(usageTable(`${p.point.perChannelPerSec}/s`, Object.values(p.runs[0])));
    o.log(usageTable('steady', steady[0]));
  }
  const { log: _log, ...recorded } = o;
  const file = writeLatestResult('engine', {
    date: new Date().toISOString(),
    minutes: (Date.now() - began) / 60_000,
    options: recorded,
    sweep,
    steady,
  });
  o.log(`\nwritten to ${file}`);
  return { sweep, steady };
}
