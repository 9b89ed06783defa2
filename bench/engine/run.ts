// `npm run bench [-- --events 120000 --repeats 2 --steady-channels 1 --diagnose]`: the volume sweep
// and the steady-state row. `--classic` runs the earlier single-volume run (20 channels × 300,000).
import { parseArgs } from 'node:util';
import { runEngineBench } from './engineBench.js';
import { runVolumeBench } from './volumeBench.js';

const { values } = parseArgs({
  options: {
    classic: { type: 'boolean', default: false },
    diagnose: { type: 'boolean', default: false },
    events: { type: 'string', default: '120000' },
    repeats: { type: 'string', default: '2' },
    'steady-channels': { type: 'string', default: '1' },
    lanes: { type: 'string', default: 'seed,zset,buckets' },
  },
});
const wholeNumber = (name: string, text: string) => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a positive whole number, got ${text}`);
  return n;
};
if (values.classic) {
  await runEngineBench();
} else {
  await runVolumeBench({
    eventsPerPoint: wholeNumber('events', values.events),
    repeats: wholeNumber('repeats', values.repeats),
    steadyChannels: wholeNumber('steady-channels', values['steady-channels']),
    diagnose: values.diagnose,
    lanes: values.lanes.split(',') as never,
  });
}
