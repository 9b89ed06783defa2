// The one set of rules for an outcome, used by the library (`record`, `recordMany`) and by the HTTP
// service (POST /v1/outcomes), whose OpenAPI schema is derived from the limits below. Every problem
// names the item's index and the field; a batch with any bad item is rejected whole, so nothing of it is
// recorded.
import { ValidationError, type FieldIssue } from '../errors.js';
import { unsafeCharacters, unsafeCharactersReason } from '../text.js';
import type { Outcome } from '../types.js';

export const outcomeLimits = {
  channelChars: 64,
  requestIdChars: 128,
  codeChars: 64,
  /** Each dimension set multiplies the counters an outcome writes: a client must not grow them unbounded. */
  dims: 16,
  dimNameChars: 32,
  dimValueChars: 64,
} as const;

export const outcomeStatuses = ['success', 'failure', 'pending'] as const;

/** A channel id is part of every Redis key of the channel (inside its `{…}` hash tag). */
export const channelPattern = /^[A-Za-z0-9._:-]{1,64}$/;
/**
 * A leading letter: dimension names are also configuration keys and metric label names, and
 * Prometheus label names may not start with a digit.
 */
export const dimNamePattern = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
/**
 * Names every object inherits (`toString`, `constructor`, `valueOf` …): as dimension names a plain-object
 * lookup finds a function on every outcome, so they are refused wherever a dimension is named.
 */
export const inheritedNames: readonly string[] = Object.getOwnPropertyNames(Object.prototype).filter((name) => dimNamePattern.test(name)).sort();
const inherited: ReadonlySet<string> = new Set(inheritedNames);

/** The one rule for a dimension name: configured sets, outcome dims, route dims and query dims all use it. */
export function isDimensionName(name: unknown): name is string {
  return typeof name === 'string' && dimNamePattern.test(name) && !inherited.has(name);
}
/** Dimension values end up inside series ids (`name=value,…`) and Redis keys: no separators, no spaces. */
export const dimValuePattern = /^[A-Za-z0-9._:/+-]{1,64}$/;

/** Fields an outcome may have; the HTTP service rejects any other (over the wire it is most often a typo). */
export const outcomeFields = ['channel', 'requestId', 'status', 'at', 'dims', 'code', 'latencyMs'] as const;
const knownFields = new Set<string>(outcomeFields);
const statuses = new Set<string>(outcomeStatuses);

export const reasons = {
  required: 'is required',
  unknownField: 'is not a known field',
  notObject: 'must be an object',
  channel: `must be 1–${outcomeLimits.channelChars} characters of [A-Za-z0-9._:-]`,
  text: 'must be a non-empty string',
  tooLong: (max: number) => `must be at most ${max} characters`,
  unsafe: unsafeCharactersReason,
  status: "must be 'success', 'failure' or 'pending'",
  at: 'must be a non-negative integer of epoch milliseconds',
  latencyMs: 'must be a non-negative number',
  dims: 'must be an object of name → value strings',
  tooManyDims: `must have at most ${outcomeLimits.dims} dimensions`,
  dimName: `name must be 1–${outcomeLimits.dimNameChars} characters of [A-Za-z0-9_], starting with a letter, and not a name every object has (toString, constructor …)`,
  dimNotConfigured: 'is not a configured dimension',
  dimValue: `value must be 1–${outcomeLimits.dimValueChars} characters of [A-Za-z0-9._:/+-]`,
} as const;

export interface ValidationRules {
  /** When set, dims may only use these names. */
  allowedDims?: Set<string>;
  /** Reject fields not in `outcomeFields` (the HTTP service); the library ignores them. */
  rejectUnknownFields?: boolean;
}

function checkText(value: unknown, field: string, max: number, index: number, issues: FieldIssue[]): void {
  if (typeof value !== 'string' || value.length === 0) issues.push({ index, field, reason: reasons.text });
  else if (value.length > max) issues.push({ index, field, reason: reasons.tooLong(max) });
  else if (hasUnsafeCharacters(value)) issues.push({ index, field, reason: reasons.unsafe });
}

/**
 * unsafeCharacters.test(), with ASCII text (nearly every request id and code) checked unit by unit: in
 * ASCII only C0 controls and DEL are unsafe. Anything else goes to the pattern whole.
 */
function hasUnsafeCharacters(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x20 || unit === 0x7f) return true;
    if (unit > 0x7f) return unsafeCharacters.test(value);
  }
  return false;
}

function required(o: Record<string, unknown>, field: string, index: number, issues: FieldIssue[]): boolean {
  if (o[field] !== undefined) return true;
  issues.push({ index, field, reason: reasons.required });
  return false;
}

export function outcomeIssues(item: unknown, index: number, rules: ValidationRules): FieldIssue[] {
  const issues: FieldIssue[] = [];
  addOutcomeIssues(item, index, rules, issues);
  return issues;
}

/** Adds the item's issues to `issues`: a batch's valid items (nearly all) then allocate nothing. */
function addOutcomeIssues(item: unknown, index: number, rules: ValidationRules, issues: FieldIssue[]): void {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    issues.push({ index, field: 'outcome', reason: reasons.notObject });
    return;
  }
  const o = item as Record<string, unknown>;
  if (required(o, 'channel', index, issues) && (typeof o.channel !== 'string' || !channelPattern.test(o.channel))) {
    issues.push({ index, field: 'channel', reason: reasons.channel });
  }
  if (required(o, 'requestId', index, issues)) checkText(o.requestId, 'requestId', outcomeLimits.requestIdChars, index, issues);
  if (required(o, 'status', index, issues) && (typeof o.status !== 'string' || !statuses.has(o.status))) {
    issues.push({ index, field: 'status', reason: reasons.status });
  }
  if (required(o, 'at', index, issues) && (typeof o.at !== 'number' || !Number.isSafeInteger(o.at) || o.at < 0)) {
    issues.push({ index, field: 'at', reason: reasons.at });
  }
  if (o.code !== undefined) checkText(o.code, 'code', outcomeLimits.codeChars, index, issues);
  if (o.latencyMs !== undefined && (typeof o.latencyMs !== 'number' || !Number.isFinite(o.latencyMs) || o.latencyMs < 0)) {
    issues.push({ index, field: 'latencyMs', reason: reasons.latencyMs });
  }
  if (o.dims !== undefined) dimsIssues(o.dims, index, rules, issues);
  if (rules.rejectUnknownFields) {
    for (const field of Object.keys(o)) if (!knownFields.has(field)) issues.push({ index, field, reason: reasons.unknownField });
  }
}

/** The one check of a dims object: an outcome's, and a rate query's `dims=` (src/server/routes/channels.ts). */
export function dimsIssues(dims: unknown, index: number, rules: ValidationRules, issues: FieldIssue[]): void {
  if (typeof dims !== 'object' || dims === null || Array.isArray(dims)) {
    issues.push({ index, field: 'dims', reason: reasons.dims });
    return;
  }
  const entries = Object.entries(dims);
  if (entries.length > outcomeLimits.dims) {
    issues.push({ index, field: 'dims', reason: reasons.tooManyDims });
    return;
  }
  for (const [name, value] of entries) {
    const field = `dims.${name}`;
    if (!isDimensionName(name)) issues.push({ index, field, reason: reasons.dimName });
    else if (rules.allowedDims && !rules.allowedDims.has(name)) issues.push({ index, field, reason: reasons.dimNotConfigured });
    if (typeof value !== 'string' || !dimValuePattern.test(value)) issues.push({ index, field, reason: reasons.dimValue });
  }
}

/** Every bad field of every item, stopping once `maxIssues` are listed (an error reply stays bounded). */
export function batchIssues(items: readonly unknown[], rules: ValidationRules, maxIssues = Infinity): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (let i = 0; i < items.length && issues.length < maxIssues; i++) addOutcomeIssues(items[i], i, rules, issues);
  return issues.length > maxIssues ? issues.slice(0, maxIssues) : issues;
}

/** Throws one ValidationError listing every bad field of every bad item. */
export function assertOutcomes(items: readonly unknown[], rules: ValidationRules): asserts items is Outcome[] {
  const issues = batchIssues(items, rules);
  if (issues.length > 0) throw new ValidationError(issues);
}

export function assertChannel(channel: unknown): asserts channel is string {
  if (typeof channel !== 'string' || !channelPattern.test(channel)) {
    throw new ValidationError([{ index: 0, field: 'channel', reason: reasons.channel }]);
  }
}
