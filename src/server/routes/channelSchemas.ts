// The JSON schemas of the channel read routes (validation and the OpenAPI document).
import { lastNMax } from '../../stats/settings.js';
import { channelPattern } from '../../stats/validate.js';
import { channelParamsSchema, errorResponses } from '../schemas.js';

const levelsSchema = {
  type: 'object',
  properties: { warn: { type: 'number' }, major: { type: 'number' }, critical: { type: 'number' } },
} as const;

const windowQuery = { type: 'string', pattern: '^[1-9]\\d*(s|m|h)$', description: 'e.g. 1m, 5m, 1h' } as const;

const stateCount = { type: 'integer', minimum: 0 } as const;

/** Channels in each state (the dashboard's badges), for an answer that leaves some out. */
export const stateSummarySchema = {
  type: 'object',
  description: 'every channel by state, whatever the page or search shows: `channels` in all, and how many are critical, major, warn, ok, few (too few samples) and none (no outcomes)',
  required: ['channels', 'critical', 'major', 'warn', 'ok', 'few', 'none'],
  properties: {
    channels: stateCount, critical: stateCount, major: stateCount, warn: stateCount, ok: stateCount, few: stateCount, none: stateCount,
  },
} as const;

/** A row's state as the alerts judge it (the one verdict of the table and the alerts panel). */
export const verdictSchema = {
  type: 'object',
  description:
    "the channel's state: while an alert fires for the channel, its level (`alerted`); otherwise the level its rate in `window` " +
    '(the shortest with enough samples) lies confidently below, at the alerts\' confidenceZ (the plain rate without alerts); few; none',
  required: ['state'],
  properties: {
    state: { type: 'string', enum: ['critical', 'major', 'warn', 'ok', 'few', 'none'] },
    window: { type: 'string' },
    alerted: { type: 'boolean' },
  },
} as const;

export const channelListSchema = {
  summary: 'Every channel with its rates for the configured windows, a page at a time past a size',
  description:
    'Served from the health snapshot (refreshed once a second). Up to `pageChannels` channels (200 by default) the answer holds ' +
    'every channel by name. Past it the default is the worst `pageChannels` first: by state (each channel\'s `verdict`: its ' +
    'firing alert\'s level, else the level of the shortest window with enough samples, then few samples, then no outcomes), then by that rate, lowest first, then by name. `sort` and ' +
    '`limit` (at most 1,000) override the defaults; `search` keeps channels whose name contains it (any case); `offset` pages ' +
    'on. `total` says how many match; an answer that leaves channels out adds `summary` (every channel by state) and, when ' +
    'more match, `nextOffset`. While the store cannot be read: the last snapshot, `stale: true`, every rate flagged ' +
    'stale, and `storeUnreachableSince`.',
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      sort: { type: 'string', enum: ['name', 'worst'], description: 'default: name up to pageChannels channels, worst past it' },
      search: { type: 'string', pattern: channelPattern.source, description: 'part of a channel name, any case' },
      offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
      limit: { type: 'integer', minimum: 1, maximum: 1_000, description: 'default: 1,000 up to pageChannels channels, pageChannels past it' },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['windows', 'thresholds', 'channels'],
      properties: {
        windows: { type: 'array', items: { type: 'string' } },
        asOf: { type: 'integer' },
        /** Present (true) only while the store cannot be read: the channels are the last snapshot, every rate flagged stale. */
        stale: { type: 'boolean' },
        /** Epoch ms the store became unreachable, while it is. */
        storeUnreachableSince: { type: 'integer' },
        total: { type: 'integer', description: 'channels matching the search (all of them without one)' },
        offset: { type: 'integer' },
        nextOffset: { type: 'integer', description: 'the offset of the next page, when more channels match' },
        summary: stateSummarySchema,
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
            properties: {
              channel: { type: 'string' },
              rates: { type: 'object', additionalProperties: { $ref: 'Rate#' } },
              stale: { type: 'boolean', description: "present (true) when the channel's part of the store is unreachable: its last rates, each flagged stale" },
              verdict: verdictSchema,
            },
          },
        },
      },
    },
    ...errorResponses,
  },
} as const;

export const rateRouteSchema = {
  summary: "A channel's success rate over a time window, or over its newest n outcomes",
  description: 'Give `window` (default 5m) or `n`, not both. `dims=method:card` narrows to a configured dimension set. A channel without outcomes within the dedup horizon answers 404 `PP_ERR_NOT_FOUND`, from the first request after start; 503 `PP_ERR_WARMING_UP` while the store has not answered once since start (nothing is known yet). `dims` names and values follow the Outcome rules, each name once.',
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

const minuteSchema = {
  type: 'object',
  required: ['minute', 'success', 'failure', 'started', 'rate'],
  properties: {
    minute: { type: 'integer', description: 'start of the minute, epoch ms' },
    success: { type: 'integer' },
    failure: { type: 'integer' },
    started: { type: 'integer' },
    rate: { type: ['number', 'null'] },
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
        minutes: { type: 'array', items: minuteSchema },
      },
    },
    ...errorResponses,
  },
} as const;

/** Channels one multi-channel history read may name: the page the dashboard shows. */
export const maxHistoryChannels = 200;

export const channelsHistoryRouteSchema = {
  summary: 'Per-minute snapshots of several channels in one request',
  description:
    `\`channels\` is a comma-separated list of at most ${maxHistoryChannels} channel ids; \`from\` and \`to\` are epoch ms or ` +
    'ISO 8601 dates (default: the last hour), at most 6 hours apart. Every channel asked for is in the answer, in the order ' +
    'asked, with no minutes when the history holds none.',
  querystring: {
    type: 'object',
    additionalProperties: false,
    required: ['channels'],
    properties: {
      channels: { type: 'string', minLength: 1, maxLength: maxHistoryChannels * 65 },
      from: { type: 'string', maxLength: 40 },
      to: { type: 'string', maxLength: 40 },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['from', 'to', 'channels'],
      properties: {
        from: { type: 'integer' },
        to: { type: 'integer' },
        channels: {
          type: 'array',
          items: {
            type: 'object',
            required: ['channel', 'minutes'],
            properties: { channel: { type: 'string' }, minutes: { type: 'array', items: minuteSchema } },
          },
        },
      },
    },
    ...errorResponses,
  },
} as const;
