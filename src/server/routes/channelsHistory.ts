// GET /v1/history?channels=a,b,c: the per-minute history of several channels in one request and one query,
// so a page showing hundreds of channels does not ask once per channel. Bounded in channels and in span, so
// one answer holds at most 200 channels × 361 minutes.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { ValidationError } from '../../errors.js';
import type { HistoryStore } from '../../history/index.js';
import { channelPattern } from '../../stats/validate.js';
import { channelsHistoryRouteSchema, maxHistoryChannels } from './channelSchemas.js';
import { historyRange, minuteWithRate } from './historyQuery.js';

const maxSpan = { ms: 6 * 3600_000, text: '6 hours' };

/** `a,b,c` → ['a', 'b', 'c']: each a channel id, none twice, at most maxHistoryChannels. */
function parseChannels(text: string): string[] {
  const fail = (reason: string) => new ValidationError([{ index: 0, field: 'querystring.channels', reason }]);
  const channels = text.split(',');
  if (channels.length > maxHistoryChannels) throw fail(`must name at most ${maxHistoryChannels} channels, got ${channels.length}`);
  const bad = channels.find((c) => !channelPattern.test(c));
  if (bad !== undefined) throw fail(`${JSON.stringify(bad.slice(0, 70))} is not a channel id (1-64 of A-Z a-z 0-9 . _ : -)`);
  if (new Set(channels).size < channels.length) throw fail('names a channel twice');
  return channels;
}

export function registerChannelsHistoryRoute(app: FastifyInstance, options: { history: Pick<HistoryStore, 'minutesOfChannels'>; clock: Clock }): void {
  app.get('/v1/history', { schema: channelsHistoryRouteSchema }, async (request) => {
    const query = request.query as { channels: string; from?: string; to?: string };
    const channels = parseChannels(query.channels);
    const { from, to } = historyRange(query, options.clock.now(), maxSpan);
    const rows = await options.history.minutesOfChannels(channels, { from, to });
    const byChannel = new Map(channels.map((channel) => [channel, [] as ReturnType<typeof minuteWithRate>[]]));
    for (const row of rows) byChannel.get(row.channel)?.push(minuteWithRate(row));
    return { from, to, channels: channels.map((channel) => ({ channel, minutes: byChannel.get(channel)! })) };
  });
}
