// GET /v1/codes?channels=a,b&window=5m: the top failure codes of each channel with their share, what the
// dashboard's rows show without a click (src/server/topCodes.ts reads and keeps them).
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../errors.js';
import { channelPattern } from '../../stats/validate.js';
import type { createTopCodes } from '../topCodes.js';

/** Channels one request may ask for: a page of the table, not the whole fleet. */
export const maxCodeChannels = 100;

const codesSchema = {
  summary: 'Top failure codes of each channel over a window, with their share of its failures',
  querystring: {
    type: 'object',
    additionalProperties: false,
    required: ['channels'],
    properties: {
      channels: { type: 'string', maxLength: maxCodeChannels * 65, description: `comma-separated channel names, at most ${maxCodeChannels}` },
      window: { type: 'string', pattern: '^[1-9]\\d*(s|m|h)$', default: '5m', description: 'e.g. 1m, 5m, 1h' },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['window', 'channels'],
      properties: {
        window: { type: 'string' },
        channels: {
          type: 'object',
          description: 'by channel: `failures` read (the newest 200 when `sampled`) and the top 3 codes with their count and share of them',
          additionalProperties: {
            type: 'object',
            properties: {
              failures: { type: 'integer' },
              sampled: { type: 'boolean' },
              codes: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, count: { type: 'integer' }, share: { type: 'number' } } } },
            },
          },
        },
      },
    },
  },
} as const;

/** `windows`: the configured ones, which the health snapshot holds, so a channel without failures in one costs no read. */
export function registerTopCodeRoutes(app: FastifyInstance, codes: ReturnType<typeof createTopCodes>, windows: readonly string[], errorResponses: Record<string, unknown>): void {
  app.get('/v1/codes', { schema: { ...codesSchema, response: { ...codesSchema.response, ...errorResponses } } }, async (request) => {
    const query = request.query as { channels: string; window: string };
    const channels = [...new Set(query.channels.split(',').filter(Boolean))];
    if (channels.length > maxCodeChannels) throw new ValidationError([{ index: 0, field: 'querystring.channels', reason: `at most ${maxCodeChannels} channels` }]);
    const bad = channels.find((c) => !channelPattern.test(c));
    if (bad !== undefined) throw new ValidationError([{ index: 0, field: 'querystring.channels', reason: `${JSON.stringify(bad)} is not a channel name` }]);
    if (!windows.includes(query.window)) throw new ValidationError([{ index: 0, field: 'querystring.window', reason: `must be one of the configured windows (${windows.join(', ')})` }]);
    return { window: query.window, channels: await codes.of(channels, query.window) };
  });
}
