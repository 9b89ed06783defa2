// The JSON schemas of the channel read routes (validation and the OpenAPI document).
import { lastNMax } from '../../stats/settings.js';
import { channelParamsSchema, errorResponses } from '../schemas.js';

const levelsSchema = {
  type: 'object',
  properties: { warn: { type: 'number' }, major: { type: 'number' }, critical: { type: 'number' } },
} as const;

const windowQuery = { type: 'string', pattern: '^[1-9]\\d*(s|m|h)$', description: 'e.g. 1m, 5m, 1h' } as const;

export const channelListSchema = {
  summary: 'Every channel with its rates for the configured windows, a page at a time',
  description:
    'Served from the health snapshot (refreshed once a second). While the store cannot be read: the last snapshot, `stale: true`, every rate flagged stale, and `storeUnreachableSince`. `sort=worst` puts the lowest success rate in the ranking window first; `search` keeps channels whose name contains it; at most 1,000 a page, `total` says how many match.',
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      sort: { type: 'string', enum: ['name', 'worst'], default: 'name' },
      search: { type: 'string', maxLength: 64 },
      offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
      limit: { type: 'integer', minimum: 1, maximum: 1_000, default: 1_000 },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['windows', 'thresholds', 'channels'],
      properties: {
        windows: { type: 'array', items: { type: 'string' } },
        asOf: { type: 'integer' },
        /** The store cannot be read: the channels are the last snapshot, every rate flagged stale. */
        stale: { type: 'boolean' },
        /** Epoch ms the store became unreachable, while it is. */
        storeUnreachableSince: { type: 'integer' },
        total: { type: 'integer' },
        offset: { type: 'integer' },
        thresholds: {
          type: 'object',
          properties: {
            warn: { type: 'number' },
            major: { type: 'number' },
            critical: { type: 'number' },
            channels: { type: 'object', description: "channels with their own levels", additionalProperties: levelsSchema },
          },
        },
        channels: {
          type: 'array',
          items: {
            type: 'object',
            required: ['channel', 'rates'],
            properties: { channel: { type: 'string' }, rates: { type: 'object', additionalProperties: { $ref: 'Rate#' } } },
          },
        },
      },
    },
    ...errorResponses,
  },
} as const;

export const rateRouteSchema = {
  summary: "A channel's success rate over a time window, or over its newest n outcomes",
  description: 'Give `window` (default 5m) or `n`, not both. `dims=method:card` narrows to a configured dimension set. A channel without outcomes within the dedup horizon answers 404 `PP_ERR_NOT_FOUND`.',
  params: channelParamsSchema,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      window: windowQuery,
      n: { type: 'integer', minimum: 1, maximum: lastNMax },
      dims: { type: 'string', maxLength: 512 },
    },
  },
  response: { 200: { $ref: 'Rate#' }, 404: { $ref: 'ErrorReply#' }, ...errorResponses },
} as const;

export const failuresRouteSchema = {
  summary: "A channel's newest failed requests",
  params: channelParamsSchema,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { window: windowQuery, limit: { type: 'integer', minimum: 1, maximum: 1_000, default: 20 } },
  },
  response: {
    200: {
      type: 'object',
      required: ['channel', 'window', 'failures'],
      properties: {
        channel: { type: 'string' },
        window: { type: 'string' },
        failures: {
          type: 'array',
          items: {
            type: 'object',
            required: ['requestId', 'at'],
            properties: { requestId: { type: 'string' }, at: { type: 'integer' }, code: { type: 'string' } },
          },
        },
      },
    },
    ...errorResponses,
  },
} as const;

export const historyRouteSchema = {
  summary: "A channel's per-minute snapshots from the history store",
  description: '`from` and `to` are epoch ms or ISO 8601 dates; default: the last hour. At most 31 days.',
  params: channelParamsSchema,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { from: { type: 'string', maxLength: 40 }, to: { type: 'string', maxLength: 40 } },
  },
  response: {
    200: {
      type: 'object',
      required: ['channel', 'minutes'],
      properties: {
        channel: { type: 'string' },
        from: { type: 'integer' },
        to: { type: 'integer' },
        minutes: {
          type: 'array',
          items: {
            type: 'object',
            required: ['minute', 'success', 'failure', 'started', 'rate'],
            properties: {
              minute: { type: 'integer', description: 'start of the minute, epoch ms' },
              success: { type: 'integer' },
              failure: { type: 'integer' },
              started: { type: 'integer' },
              rate: { type: ['number', 'null'] },
            },
          },
        },
      },
    },
    ...errorResponses,
  },
} as const;
