// JSON schemas shared by the routes and the OpenAPI document. The outcome's schema is derived from the
// library's rules (stats/validate.ts), which are what POST /v1/outcomes actually checks; a test feeds both
// the same items (test/server/outcomeParity.test.ts).
import { channelPattern, dimNamePattern, dimValuePattern, inheritedNames, outcomeLimits, outcomeStatuses } from '../stats/validate.js';
import { unsafeCharacters } from '../text.js';

/** A string free of the characters no id may hold, as a JSON Schema pattern. */
const safeTextPattern = `^[^${unsafeCharacters.source.slice(1, -1)}]*$`;

export const outcomeSchema = {
  $id: 'Outcome',
  type: 'object',
  description: 'One payment request reaching a state. `at` is the COMPLETION time: a slow payment counts when it ends, not when it started.',
  additionalProperties: false,
  required: ['channel', 'requestId', 'status', 'at'],
  properties: {
    channel: { type: 'string', pattern: channelPattern.source },
    requestId: { type: 'string', minLength: 1, maxLength: outcomeLimits.requestIdChars, pattern: safeTextPattern },
    status: { type: 'string', enum: outcomeStatuses },
    at: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'epoch milliseconds' },
    dims: {
      type: 'object',
      maxProperties: outcomeLimits.dims,
      propertyNames: { pattern: dimNamePattern.source, not: { enum: inheritedNames } },
      additionalProperties: { type: 'string', pattern: dimValuePattern.source },
    },
    code: { type: 'string', minLength: 1, maxLength: outcomeLimits.codeChars, pattern: safeTextPattern },
    latencyMs: { type: 'number', minimum: 0 },
  },
} as const;

export const maxBatchItems = 10_000;

export const outcomeBatchSchema = {
  $id: 'OutcomeBatch',
  type: 'object',
  additionalProperties: false,
  required: ['outcomes'],
  properties: { outcomes: { type: 'array', maxItems: maxBatchItems, items: { $ref: 'Outcome#' } } },
} as const;

const nullableNumber = { type: ['number', 'null'] } as const;

export const rateSchema = {
  $id: 'Rate',
  type: 'object',
  required: ['channel', 'window', 'total', 'success', 'failure', 'rate', 'low', 'high', 'sufficient', 'started', 'pending', 'stale', 'asOf'],
  properties: {
    channel: { type: 'string' },
    dims: { type: 'object', additionalProperties: { type: 'string' } },
    window: { type: 'string', description: '`5m`, `1h` … or `last100` for the newest 100 outcomes' },
    total: { type: 'integer' },
    success: { type: 'integer' },
    failure: { type: 'integer' },
    rate: { ...nullableNumber, description: 'success / total; null when total is 0' },
    low: { ...nullableNumber, description: '95 % Wilson interval, lower bound' },
    high: { ...nullableNumber, description: '95 % Wilson interval, upper bound' },
    sufficient: { type: 'boolean', description: 'total >= minSamples' },
    started: { type: 'integer' },
    pending: { type: 'integer' },
    stale: { type: 'boolean', description: 'the store was unreachable: last known value' },
    asOf: { type: 'integer', description: 'epoch ms the numbers are for' },
  },
} as const;

export const errorReplySchema = {
  $id: 'ErrorReply',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'a PP_ERR_* code' },
        message: { type: 'string' },
        details: {},
      },
    },
  },
} as const;

export const recordResultSchema = {
  type: 'object',
  required: ['accepted', 'duplicates', 'corrected', 'stale', 'buffered', 'dropped'],
  properties: {
    accepted: { type: 'integer' },
    duplicates: { type: 'integer' },
    corrected: { type: 'integer', description: 'earlier failures upgraded to success' },
    stale: { type: 'integer', description: 'too old for every window or too far in the future; not counted' },
    buffered: { type: 'integer', description: 'held in the bounded retry buffer while the store is unreachable' },
    dropped: { type: 'integer', description: 'lost because the store was unreachable and the retry buffer was full (logged)' },
  },
} as const;

export const channelParamsSchema = {
  type: 'object',
  required: ['channel'],
  properties: { channel: { type: 'string', pattern: channelPattern.source } },
} as const;

export const errorResponses = {
  400: { $ref: 'ErrorReply#' },
  503: { $ref: 'ErrorReply#' },
} as const;

export const sharedSchemas = [outcomeSchema, outcomeBatchSchema, rateSchema, errorReplySchema];
