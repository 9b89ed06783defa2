// Validates POST /v1/outcomes bodies with the library's own outcome rules (stats/validate.ts), so the
// service and the library accept and reject the same outcomes with the same {index, field, reason}.
// Every bad field of every item is reported, so a gateway team fixes a whole batch from one reply:
// Fastify's shared Ajv would stop at the first error and strip unknown fields.
import { ValidationError, type FieldIssue } from '../errors.js';
import { batchIssues, outcomeIssues, reasons } from '../stats/validate.js';
import type { Outcome } from '../types.js';
import { maxBatchItems } from './schemas.js';

/** Index used for problems of the body itself rather than of one item. */
export const bodyIndex = -1;

/** A batch of bad items could otherwise make the error reply larger than the request. */
export const maxReportedIssues = 1_000;

/** Over the wire an unknown field is most often a misspelt optional one, which would be lost silently. */
const httpRules = { rejectUnknownFields: true } as const;

/** Returns the outcomes of a valid body, or the ValidationError listing every problem. */
export function parseOutcomeBody(body: unknown): { value: Outcome[] } | { error: ValidationError } {
  const fail = (issues: FieldIssue[]) => ({ error: new ValidationError(issues.slice(0, maxReportedIssues)) });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail([{ index: bodyIndex, field: '(body)', reason: 'must be one outcome object or { "outcomes": [...] }' }]);
  }
  if (!('outcomes' in body)) {
    const issues = outcomeIssues(body, 0, httpRules);
    return issues.length > 0 ? fail(issues) : { value: [body as Outcome] };
  }
  const { outcomes, ...rest } = body as { outcomes: unknown };
  const issues: FieldIssue[] = Object.keys(rest).map((field) => ({ index: bodyIndex, field, reason: reasons.unknownField }));
  if (!Array.isArray(outcomes)) {
    return fail([...issues, { index: bodyIndex, field: 'outcomes', reason: 'must be an array' }]);
  }
  if (outcomes.length > maxBatchItems) {
    return fail([...issues, { index: bodyIndex, field: 'outcomes', reason: `must hold at most ${maxBatchItems} items (got ${outcomes.length})` }]);
  }
  issues.push(...batchIssues(outcomes, httpRules, maxReportedIssues - issues.length));
  return issues.length > 0 ? fail(issues) : { value: outcomes as Outcome[] };
}
