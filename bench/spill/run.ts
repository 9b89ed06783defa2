// `npm run bench:spill`: what it costs to make an outcome durable before answering `buffered` during a store
// outage — an fsync'd journal file (src/stats/spill) against the alternative, a PostgreSQL table (one INSERT
// of the batch per append, committed with synchronous_commit on: also one WAL fsync per commit). The traffic
// that hurts is many small appends: a gateway calling `record` once per callback while Redis is down, so the
// sweep goes from 1 to 1,000 outcomes per append with 1 and 64 appends in flight. Never part of `npm test`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { formatTable, percentile } from '../support/report.js';
import { writeLatestResult } from '../support/results.js';
import { SpillJournal } from '../../src/stats/spill/journal.js';
import type { Outcome } from '../../src/types.js';
import { createTestDatabase } from '../../test/history/databases.js';

const secondsPerPoint = Number(process.env.BENCH_SPILL_SECONDS ?? 2);
const batchSizes = [1, 10, 100, 1000];
const concurrencies = [1, 64];

interface Point {
  backend: 'journal file' | 'postgresql table';
  batch: number;
  inFlight: number;
  appendsPerSec: number;
  outcomesPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

let counter = 0;
const outcomes = (n: number): Outcome[] =>
  Array.from({ length: n }, () => ({ channel: 'alipay', requestId: `ord_${String(counter++).padStart(16, '0')}`, status: 'success', at: Date.now(), dims: { method: 'card' } }));

async function measure(append: (batch: Outcome[]) => Promise<unknown>, batch: number, inFlight: number) {
  const latencies: number[] = [];
  const deadline = performance.now() + secondsPerPoint * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        const items = outcomes(batch);
        const t = performance.now();
        await append(items);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { appendsPerSec: latencies.length / seconds, outcomesPerSec: (latencies.length * batch) / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

async function journalPoints(): Promise<Point[]> {
  const points: Point[] = [];
  for (const batch of batchSizes) {
    for (const inFlight of concurrencies) {
      const dir = mkdtempSync(join(tmpdir(), 'paypulse-bench-spill-'));
      const journal = await SpillJournal.open({ dir, maxBytes: 8 * 1024 ** 3 });
      try {
        points.push({ backend: 'journal file', batch, inFlight, ...(await measure((b) => journal.append(b), batch, inFlight)) });
      } finally {
        await journal.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  return points;
}

async function postgresPoints(): Promise<Point[]> {
  const database = await createTestDatabase();
  const sql = postgres(database.url, { max: 64, onnotice: () => undefined });
  const points: Point[] = [];
  try {
    await sql.unsafe('CREATE TABLE spill (seq bigserial PRIMARY KEY, outcomes jsonb NOT NULL)');
    for (const batch of batchSizes) {
      for (const inFlight of concurrencies) {
        await sql.unsafe('TRUNCATE spill');
        const append = (b: Outcome[]) => sql.unsafe('INSERT INTO spill (outcomes) VALUES ($1::jsonb)', [JSON.stringify(b)]);
        points.push({ backend: 'postgresql table', batch, inFlight, ...(await measure(append, batch, inFlight)) });
      }
    }
  } finally {
    await sql.end({ timeout: 5 });
    await database.drop();
  }
  return points;
}

const journal = await journalPoints();
const table = await postgresPoints();
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const rows = journal.map((j, i) => {
  const p = table[i];
  return [String(j.batch), String(j.inFlight), fmt(j.outcomesPerSec), fmt(p.outcomesPerSec), `${fmt(j.outcomesPerSec / p.outcomesPerSec, 2)}×`, `${fmt(j.p50Ms, 2)} / ${fmt(j.p99Ms, 2)}`, `${fmt(p.p50Ms, 2)} / ${fmt(p.p99Ms, 2)}`];
});
console.log(
  formatTable(['outcomes per append', 'appends in flight', 'file: outcomes/s', 'PostgreSQL: outcomes/s', 'file ÷ PostgreSQL', 'file p50 / p99 ms', 'PostgreSQL p50 / p99 ms'], rows),
);
const written = writeLatestResult('spill', { at: new Date().toISOString(), secondsPerPoint, points: [...journal, ...table] });
console.log(`\nwritten to ${written}`);
