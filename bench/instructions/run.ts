// `npm run bench:instructions [-- --events 20000 --batch 500 --queries 1000 --lanes seed,buckets --points 1x400,2000x1]`:
// the instructions Redis executes per event, and per 5-minute rate query on the hottest channel after the
// ingest, counted by callgrind, for each lane of the engine sweep. The count
// moves by ≈ 0.5 % between runs whatever the machine's other load, where Redis CPU time moves by ±15 % on a
// shared 2-core machine: a change of a few per cent to a script shows here in one run. Instructions are not
// time (neither the kernel's work nor cache misses are counted): the sweep stays the measure of the bars,
// this is the measure to choose between two versions of a script.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { createClient } from 'redis';
import { ManualClock } from '../../src/clock.js';
import { freePort } from '../../test/support/redisServer.js';
import { openLane, type LaneName } from '../engine/lanes.js';
import { batchesOf, trafficAt, volumePoints, type VolumePoint } from '../engine/traffic.js';
import { formatTable } from '../support/report.js';
import { writeLatestResult } from '../support/results.js';

const run = promisify(execFile);

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    // The sweep's four writers of 500 reach Redis as one call of ≈ 2,000 at 1 event/s per channel, where
    // the recorder coalesces them (src/stats/batchSize.ts): --batch 2000 counts that shape.
    batch: { type: 'string', default: '500' },
    queries: { type: 'string', default: '1000' },
    lanes: { type: 'string', default: 'seed,buckets' },
    points: { type: 'string', default: volumePoints.map((p) => `${p.perChannelPerSec}x${p.channels}`).join(',') },
  },
});

interface Count {
  point: VolumePoint;
  lane: LaneName;
  instructionsPerEvent: number;
  instructionsPerQuery: number;
}

/** A redis-server under callgrind, counting from `zero()` to `total()`. */
async function startCountedRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'paypulse-callgrind-'));
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${dir}/out.%p`, 'redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = createClient({ url, socket: { reconnectStrategy: 200 } });
  probe.on('error', () => {});
  await probe.connect(); // under valgrind the server takes a few seconds to listen
  await probe.close();
  const pid = String(child.pid);
  return {
    url,
    zero: () => run('callgrind_control', ['-z', pid]),
    /** Instructions since zero(): the summary of the dump this call asks for. */
    async total(): Promise<number> {
      await run('callgrind_control', ['-d', pid]);
      const dump = readdirSync(dir).filter((f) => f.startsWith('out.')).sort().at(-1)!;
      return Number(/^summary: (\d+)/m.exec(readFileSync(join(dir, dump), 'utf8'))![1]);
    },
    async stop() {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// One writer: under callgrind Redis is ≈ 50× slower, and concurrent writers' batches would coalesce
// into bigger calls than they do at full speed.
async function countLane(lane: LaneName, point: VolumePoint, events: number, batchSize: number, queries: number): Promise<Count> {
  const traffic = trafficAt(point, events, Date.UTC(2026, 0, 1, 12));
  const redis = await startCountedRedis();
  const clock = new ManualClock(traffic.startMs);
  const opened = await openLane(lane, redis.url, clock);
  try {
    await opened.rate5m(traffic.channels[0]); // a first call before counting, as laneRun.ts makes one
    await redis.zero();
    for (const batch of batchesOf(traffic, batchSize)) {
      clock.set(Math.max(clock.now(), batch[batch.length - 1].at));
      await opened.recordMany(batch);
    }
    const instructionsPerEvent = Math.round((await redis.total()) / traffic.events);
    await redis.zero();
    for (let i = 0; i < queries; i++) await opened.rate5m(traffic.channels[0]);
    return { point, lane, instructionsPerEvent, instructionsPerQuery: Math.round((await redis.total()) / queries) };
  } finally {
    await opened.close();
    await redis.stop();
  }
}

const events = Number(values.events);
const batchSize = Number(values.batch);
const queries = Number(values.queries);
const lanes = values.lanes.split(',') as LaneName[];
const points = values.points.split(',').map((p) => {
  const [perChannelPerSec, channels] = p.split('x').map(Number);
  return { perChannelPerSec, channels };
});
const counts: Count[] = [];
for (const point of points) {
  for (const lane of lanes) {
    console.error(`${point.perChannelPerSec}/s × ${point.channels}: ${lane}…`);
    counts.push(await countLane(lane, point, events, batchSize, queries));
  }
}
const seedOf = (point: VolumePoint) => counts.find((c) => c.point === point && c.lane === 'seed');
const ratio = (value: number, seed: number | undefined) => (seed ? `${(value / seed).toFixed(2)}×` : '');
console.log(
  formatTable(
    ['per channel × channels', 'lane', 'Redis instructions/event', '× seed', 'Redis instructions/query', '× seed'],
    counts.map((c) => {
      const seed = seedOf(c.point);
      return [
        `${c.point.perChannelPerSec.toLocaleString('en-US')}/s × ${c.point.channels}`,
        c.lane,
        c.instructionsPerEvent.toLocaleString('en-US'),
        ratio(c.instructionsPerEvent, seed?.instructionsPerEvent),
        c.instructionsPerQuery.toLocaleString('en-US'),
        ratio(c.instructionsPerQuery, seed?.instructionsPerQuery),
      ];
    }),
  ),
);
console.log(`written to ${writeLatestResult('instructions', { events, writers: 1, batch: batchSize, queries, counts })}`);
