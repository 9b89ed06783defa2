// `npm run bench [-- --channels 20 --events-per-channel 300000]`: the engine benchmark from a checkout.
import { parseArgs } from 'node:util';
import { runEngineBench } from './engineBench.js';

const { values } = parseArgs({
  options: { channels: { type: 'string', default: '20' }, 'events-per-channel': { type: 'string', default: '300000' } },
});
const wholeNumber = (name: string, text: string) => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a positive whole number, got ${text}`);
  return n;
};
await runEngineBench({
  channels: wholeNumber('channels', values.channels),
  eventsPerChannel: wholeNumber('events-per-channel', values['events-per-channel']),
});
