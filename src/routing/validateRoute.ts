// Checks of a route request: every problem names its field, and nothing is decided on bad input.
import { ValidationError, type FieldIssue } from '../errors.js';
import { channelPattern, dimValuePattern, isDimensionName, outcomeLimits, reasons } from '../stats/validate.js';
import { breakerModes, type BreakerMode, type RouteRequest } from './types.js';

/** Candidates per decision: a ranking is sorted per call, so its size is bounded. */
export const maxCandidates = 64;

function dimsIssues(dims: unknown, issues: FieldIssue[]): void {
  if (dims === undefined) return;
  if (typeof dims !== 'object' || dims === null || Array.isArray(dims)) {
    issues.push({ index: 0, field: 'dims', reason: 'must be an object of name → value' });
    return;
  }
  const entries = Object.entries(dims);
  if (entries.length > outcomeLimits.dims) issues.push({ index: 0, field: 'dims', reason: reasons.tooManyDims });
  for (const [name, value] of entries.slice(0, outcomeLimits.dims)) {
    if (!isDimensionName(name)) issues.push({ index: 0, field: `dims.${String(name).slice(0, 40)}`, reason: reasons.dimName });
    else if (typeof value !== 'string' || !dimValuePattern.test(value)) {
      issues.push({ index: 0, field: `dims.${name}`, reason: reasons.dimValue });
    }
  }
}

export function routeRequestIssues(req: unknown): FieldIssue[] {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return [{ index: 0, field: 'request', reason: 'must be an object' }];
  const r = req as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  const candidates = r.candidates;
  if (!Array.isArray(candidates) || candidates.length === 0) {
    issues.push({ index: 0, field: 'candidates', reason: 'must be a non-empty list of channels' });
  } else if (candidates.length > maxCandidates) {
    issues.push({ index: 0, field: 'candidates', reason: `must list at most ${maxCandidates} channels` });
  } else {
    const seen = new Set<string>();
    candidates.forEach((c, i) => {
      if (typeof c !== 'string' || !channelPattern.test(c)) issues.push({ index: 0, field: `candidates[${i}]`, reason: reasons.channel });
      else if (seen.has(c)) issues.push({ index: 0, field: `candidates[${i}]`, reason: `duplicates ${JSON.stringify(c)}` });
      else seen.add(c);
    });
  }
  dimsIssues(r.dims, issues);
  if (r.amount !== undefined && (typeof r.amount !== 'number' || !Number.isFinite(r.amount) || r.amount < 0)) {
    issues.push({ index: 0, field: 'amount', reason: 'must be a finite number ≥ 0' });
  }
  if (r.requestId !== undefined && (typeof r.requestId !== 'string' || r.requestId.length === 0 || r.requestId.length > 128)) {
    issues.push({ index: 0, field: 'requestId', reason: 'must be a string of 1–128 characters' });
  }
  return issues;
}

export function assertRouteRequest(req: unknown): asserts req is RouteRequest {
  const issues = routeRequestIssues(req);
  if (issues.length > 0) throw new ValidationError(issues);
}

export function assertBreakerMode(mode: unknown): asserts mode is BreakerMode {
  if (!breakerModes.includes(mode as BreakerMode)) {
    throw new ValidationError([{ index: 0, field: 'mode', reason: `must be one of ${breakerModes.join(', ')}` }]);
  }
}
