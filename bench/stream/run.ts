// `npm run bench:stream`: the full-size bar for stream ingestion. Two `paypulse serve` processes in
// one consumer group; a gateway XADDs 200,000 outcomes at 5,000/s with 100 invalid entries planted; one
// instance is SIGKILLed at 30 % of the writing and started again at 50 %. Checks: every outcome counted exactly
// once by the service, nothing pending, dead letters exactly the planted entries. Never part of `npm test`
// (its small twin is test/ingest/streamFleet.test.ts). Writes bench/stream/results/latest.json.
import { cpus } from 'node:os';
import { runFleetScenario } from '../../test/ingest/streamFleet.js';
import { writeLatestResult } from '../support/results.js';

const outcomes = Number(process.env.BENCH_STREAM_OUTCOMES ?? 200_000);
const perSecond = Number(process.env.BENCH_STREAM_RATE ?? 5_000);
const invalid = 100;

const report = await runFleetScenario(
  { outcomes, perSecond, invalid, killAt: 0.3, restartAt: 0.5, settleTimeoutMs: 300_000 },
  (line) => process.stderr.write(`${line}\n`),
);
const exactlyOnce = report.counted === report.written;
const deadLettersExact = JSON.stringify(report.deadLetterIds) === JSON.stringify(report.plantedIds);
const met = exactlyOnce && report.pending === 0 && deadLettersExact;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const table = [
  '| outcomes XADDed (rate) | counted by the service | pending after | lag after | dead letters (planted) | write time | until all counted | bar |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  `| ${fmt(report.written)} (${fmt(perSecond)}/s) | ${fmt(report.counted)} | ${report.pending} | ${report.lag ?? 'n/a'} | ${report.deadLetterIds.length} (${report.plantedIds.length}${deadLettersExact ? ', same ids' : ', DIFFERENT ids'}) | ${report.writeSeconds.toFixed(1)} s | ${report.ingestSeconds.toFixed(1)} s | ${met ? 'met' : 'MISSED'} |`,
].join('\n');
process.stdout.write(`\n${table}\n\n`);
const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version };
const file = writeLatestResult('stream', { date: new Date().toISOString(), machine, settings: { outcomes, perSecond, invalid, killAt: 0.3, restartAt: 0.5 }, report: { ...report, deadLetterIds: report.deadLetterIds.length, plantedIds: report.plantedIds.length }, met });
process.stdout.write(`wrote ${file}\n`);
if (!met) process.exitCode = 1;
