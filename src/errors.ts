// Stable error codes (Fastify's FST_ERR_* habit): one registry with the HTTP status each maps to.
// The README lists them; test/errors.test.ts keeps the two in sync.

export const errorCodes = {
  PP_ERR_VALIDATION: { status: 400, message: 'invalid input' },
  PP_ERR_CONFIG: { status: 500, message: 'invalid configuration' },
  PP_ERR_STORE_UNAVAILABLE: { status: 503, message: 'the store could not be reached' },
  PP_ERR_NOT_FOUND: { status: 404, message: 'not found' },
  PP_ERR_UNAUTHORIZED: { status: 401, message: 'missing or wrong bearer token' },
  PP_ERR_PAYLOAD_TOO_LARGE: { status: 413, message: 'request body too large' },
  PP_ERR_LIMIT: { status: 429, message: 'too many distinct channels or dimension values' },
  PP_ERR_LOCK_HELD: { status: 409, message: 'the lock is held by someone else' },
  PP_ERR_LOCK_LOST: { status: 409, message: 'the lock was lost before the work finished' },
  PP_ERR_IDEMPOTENCY_MISMATCH: { status: 422, message: 'idempotency key reused with a different request' },
  PP_ERR_CLOSED: { status: 503, message: 'the instance is closed' },
  PP_ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'send the body as application/json' },
  PP_ERR_REQUEST_TIMEOUT: { status: 408, message: 'the request was not received in time' },
  PP_ERR_HEADERS_TOO_LARGE: { status: 431, message: 'request headers too large' },
  PP_ERR_TOO_MANY_STREAMS: { status: 429, message: 'too many open streams from this address' },
  PP_ERR_INTERNAL: { status: 500, message: 'internal error' },
  PP_ERR_STREAM_RECONNECTS: { status: 429, message: 'too many streams opened from this address within a minute' },
  PP_ERR_WARMING_UP: { status: 503, message: 'warming up: the store has not been read since start' },
  PP_ERR_CONFIG_REFUSED: { status: 422, message: 'the new configuration was refused; the running one stays' },
} as const;

export type ErrorCode = keyof typeof errorCodes;

export class PayPulseError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string = errorCodes[code].message,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'PayPulseError';
    this.status = errorCodes[code].status;
  }
}

/** One bad field of one input item; `index` is the item's position in its batch. */
export interface FieldIssue {
  index: number;
  field: string;
  reason: string;
}

export class ValidationError extends PayPulseError {
  constructor(readonly issues: FieldIssue[]) {
    super(
      'PP_ERR_VALIDATION',
      issues
        .slice(0, 5)
        .map((i) => `item ${i.index}: ${i.field} ${i.reason}`)
        .join('; ') + (issues.length > 5 ? `; and ${issues.length - 5} more` : ''),
      issues,
    );
    this.name = 'ValidationError';
  }
}

export class StoreUnavailableError extends PayPulseError {
  constructor(cause: unknown, details?: unknown) {
    super('PP_ERR_STORE_UNAVAILABLE', `store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, details);
    this.name = 'StoreUnavailableError';
  }
}

/** Outcomes naming new channels or dimension values past their limits; `details` lists each like a ValidationError. */
export class LimitError extends PayPulseError {
  constructor(readonly issues: FieldIssue[]) {
    super(
      'PP_ERR_LIMIT',
      `${issues.length} outcome(s) name new channels or dimension values past the limit; nothing of the batch was recorded (first: item ${issues[0]?.index}: ${issues[0]?.field} ${issues[0]?.reason})`,
      issues,
    );
    this.name = 'LimitError';
  }
}
