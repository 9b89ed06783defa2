// Input checks for outcomes and queries. Every problem names the field and the item's index; a batch
// with any bad item is rejected whole, so nothing of it is recorded (DESIGN "Standards").
import { ValidationError, type FieldIssue } from '../errors.js';
import type { Outcome } from '../types.js';

export const channelPattern = /^[A-Za-z0-9._:-]{1,64}$/;
export const dimNamePattern = /^[A-Za-z0-9_]{1,32}$/;
// Dim values end up inside series ids (`name=value,…`) and Redis keys: no separators, no spaces.
const dimValuePattern = /^[A-Za-z0-9._:/+-]{1,64}$/;
// eslint-disable-next-line no-control-regex
const controlChars = /[\u0000-\u001f\u007f]/;
const statuses = new Set(['success', 'failure', 'pending']);

export interface ValidationRules {
  /** When set, dims may only use these names. */
  allowedDims?: Set<string>;
}

function checkText(value: unknown, field: string, max: number, index: number, issues: FieldIssue[]): void {
  if (typeof value !== 'string' || value.length === 0) issues.push({ index, field, reason: 'must be a non-empty string' });
  else if (value.length > max) issues.push({ index, field, reason: `must be at most ${max} characters` });
  else if (controlChars.test(value)) issues.push({ index, field, reason: 'must not contain control characters' });
}

export function outcomeIssues(item: unknown, index: number, rules: ValidationRules): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return [{ index, field: 'outcome', reason: 'must be an object' }];
  }
  const o = item as Record<string, unknown>;
  if (typeof o.channel !== 'string' || !channelPattern.test(o.channel)) {
    issues.push({ index, field: 'channel', reason: 'must be 1–64 characters of [A-Za-z0-9._:-]' });
  }
  checkText(o.requestId, 'requestId', 128, index, issues);
  if (typeof o.status !== 'string' || !statuses.has(o.status)) {
    issues.push({ index, field: 'status', reason: "must be 'success', 'failure' or 'pending'" });
  }
  if (typeof o.at !== 'number' || !Number.isSafeInteger(o.at) || o.at < 0) {
    issues.push({ index, field: 'at', reason: 'must be a non-negative integer of epoch milliseconds' });
  }
  if (o.code !== undefined) checkText(o.code, 'code', 64, index, issues);
  if (o.latencyMs !== undefined && (typeof o.latencyMs !== 'number' || !Number.isFinite(o.latencyMs) || o.latencyMs < 0)) {
    issues.push({ index, field: 'latencyMs', reason: 'must be a non-negative number' });
  }
  if (o.dims !== undefined) issues.push(...dimsIssues(o.dims, index, rules));
  return issues;
}

function dimsIssues(dims: unknown, index: number, rules: ValidationRules): FieldIssue[] {
  if (typeof dims !== 'object' || dims === null || Array.isArray(dims)) {
    return [{ index, field: 'dims', reason: 'must be an object of name → value strings' }];
  }
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(dims)) {
    const field = `dims.${name}`;
    if (!dimNamePattern.test(name)) issues.push({ index, field, reason: 'name must be 1–32 characters of [A-Za-z0-9_]' });
    else if (rules.allowedDims && !rules.allowedDims.has(name)) issues.push({ index, field, reason: 'is not a configured dimension' });
    if (typeof value !== 'string' || !dimValuePattern.test(value)) {
      issues.push({ index, field, reason: 'value must be 1–64 characters of [A-Za-z0-9._:/+-]' });
    }
  }
  return issues;
}

/** Throws one ValidationError listing every bad field of every bad item. */
export function assertOutcomes(items: readonly unknown[], rules: ValidationRules): asserts items is Outcome[] {
  const issues = items.flatMap((item, index) => outcomeIssues(item, index, rules));
  if (issues.length > 0) throw new ValidationError(issues);
}

export function assertChannel(channel: unknown): asserts channel is string {
  if (typeof channel !== 'string' || !channelPattern.test(channel)) {
    throw new ValidationError([{ index: 0, field: 'channel', reason: 'must be 1–64 characters of [A-Za-z0-9._:-]' }]);
  }
}
