// Validates POST /v1/outcomes bodies: every bad field of every item is reported (index, field, reason),
// so a gateway team fixes a whole batch from one reply. Fastify's shared Ajv stops at the first error and
// strips unknown fields by default; both are wrong here (the issue asks for unknown fields to be rejected).
import { Ajv, type ErrorObject } from 'ajv';
import { ValidationError, type FieldIssue } from '../errors.js';
import type { Outcome } from '../types.js';
import { maxBatchItems, outcomeSchema } from './schemas.js';

const ajv = new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false });
const validateItem = ajv.compile<Outcome>({ ...outcomeSchema, $id: undefined });

/** Index used for problems of the body itself rather than of one item. */
export const bodyIndex = -1;

/** A batch of bad items could otherwise make the error reply larger than the request. */
export const maxReportedIssues = 1_000;

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.split('/').filter(Boolean).join('.');
  const params = error.params as Record<string, string>;
  const child = params.missingProperty ?? params.additionalProperty ?? (error.keyword === 'propertyNames' ? params.propertyName : undefined);
  return [path, child].filter(Boolean).join('.') || '(item)';
}

function reasonOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(params.allowedValues as string[]).join(', ')}`;
    case 'pattern':
      return error.instancePath === '/channel'
        ? 'must be 1-64 characters of A-Z a-z 0-9 . _ : -'
        : `must match ${String(params.pattern)}`;
    case 'propertyNames':
      return 'dimension names must be 1-32 of A-Z a-z 0-9 _, starting with a letter';
    default:
      return error.message ?? 'is invalid';
  }
}

function itemIssues(item: unknown, index: number): FieldIssue[] {
  if (validateItem(item)) return [];
  // propertyNames reports twice (the name and the wrapper); keep one line per field and reason.
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const error of validateItem.errors ?? []) {
    if (error.keyword === 'pattern' && error.propertyName !== undefined) continue;
    const issue = { index, field: fieldOf(error), reason: reasonOf(error) };
    const key = `${issue.field}\u0000${issue.reason}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues;
}

/** Returns the outcomes of a valid body, or the ValidationError listing every problem. */
export function parseOutcomeBody(body: unknown): { value: Outcome[] } | { error: ValidationError } {
  const fail = (issues: FieldIssue[]) => ({ error: new ValidationError(issues.slice(0, maxReportedIssues)) });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail([{ index: bodyIndex, field: '(body)', reason: 'must be one outcome object or { "outcomes": [...] }' }]);
  }
  if (!('outcomes' in body)) {
    const issues = itemIssues(body, 0);
    return issues.length > 0 ? fail(issues) : { value: [body as Outcome] };
  }
  const { outcomes, ...rest } = body as { outcomes: unknown };
  const issues: FieldIssue[] = Object.keys(rest).map((field) => ({ index: bodyIndex, field, reason: 'is not a known field' }));
  if (!Array.isArray(outcomes)) {
    return fail([...issues, { index: bodyIndex, field: 'outcomes', reason: 'must be an array' }]);
  }
  if (outcomes.length > maxBatchItems) {
    return fail([...issues, { index: bodyIndex, field: 'outcomes', reason: `must hold at most ${maxBatchItems} items (got ${outcomes.length})` }]);
  }
  for (let i = 0; i < outcomes.length && issues.length < maxReportedIssues; i++) issues.push(...itemIssues(outcomes[i], i));
  return issues.length > 0 ? fail(issues) : { value: outcomes as Outcome[] };
}
