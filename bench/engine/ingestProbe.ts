// `npx tsx bench/engine/ingestProbe.ts [--points 1,2000] [--lanes seed,buckets] [--repeats 2]`: the sweep's
// ingest alone (no steady row, few queries), for profiling the library's write path under
// `node --cpu-prof` or comparing a change quickly; each line is one lane's run of one point.
import { parseArgs } from 'node:util';
import { runLane } from './laneRun.js';
import type { LaneName } from './lanes.js';
import { expectedIn5m, trafficAt, volumePoints } from './traffic.js';

const { values } = parseArgs({
  options: {
    points: { type: 'string', default: '1,10,50,500,2000' },
    lanes: { type: 'string', default: 'seed,buckets' },
    events: { type: 'string', default: '60000' },
    repeats: { type: 'string', default: '1' },
  },
});
const start = Date.UTC(2026, 0, 1, 12);
const perSec = values.points.split(',').map(Number);
const points = volumePoints.filter((p) => perSec.includes(p.perChannelPerSec));
const lanes = values.lanes.split(',') as LaneName[];
const options = { writers: 4, batch: 500, warmUpQueries: 0, queries: 10, diagnose: false };
for (let repeat = 0; repeat < Number(values.repeats); repeat++) {
  for (const point of points) {
    const traffic = trafficAt(point, Number(values.events), start);
    for (const lane of lanes) {
      const run = await runLane(lane, traffic, (l, c, now) => expectedIn5m(traffic, l === 'seed', c, now), options);
      const line = [`${point.perChannelPerSec}/s`, lane.padEnd(8), `${run.eventsPerSec} ev/s`, `client ${run.clientCpuUsPerEvent.toFixed(2)} µs/ev`, `redis ${run.redisCpuUsPerEvent.toFixed(2)} µs/ev`, `${(1 / run.scriptCallsPerEvent).toFixed(0)} ev/call`];
      console.log(line.join('  '));
    }
  }
}
