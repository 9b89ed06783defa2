// Names and options checked in one place (keys built in one place from trimmed, normalised ids), so two spellings of one payment never take two locks and bad input fails with the field's name.
import { unsafeCharacters, unsafeCharactersReason } from '../text.js';
import { invalidField } from './errors.js';

export const nameLimits = { resource: 200, idempotencyKey: 256, cacheKey: 512, recencyName: 128, recencyId: 256 } as const;

/** Trimmed, NFC-normalised, non-empty, no control characters, at most `maxLength` characters. */
export function normaliseName(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string') throw invalidField(field, `must be a string, got ${typeof value}`);
  const name = value.normalize('NFC').trim();
  if (name === '') throw invalidField(field, 'must not be empty');
  if (name.length > maxLength) throw invalidField(field, `must be at most ${maxLength} characters, got ${name.length}`);
  if (unsafeCharacters.test(name)) throw invalidField(field, unsafeCharactersReason);
  return name;
}

/** A positive whole number of ms (Redis PX takes integers); `undefined` gives `fallback` when one exists. */
export function positiveMs(value: unknown, field: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw invalidField(field, `must be a positive whole number of milliseconds, got ${String(value)}`);
  }
  return value;
}

/** A positive whole count (entries, concurrency). */
export function positiveCount(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw invalidField(field, `must be a positive whole number, got ${String(value)}`);
  }
  return value;
}

/** A wait budget: 0 means "do not wait". */
export function waitMs(value: unknown, field: string): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidField(field, `must be a whole number of milliseconds ≥ 0, got ${String(value)}`);
  }
  return value;
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `7d`, `90m`, `1500ms` or a number of ms; positive. */
export function durationMs(value: unknown, field: string): number {
  if (typeof value === 'string') {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(value.trim());
    if (!match) throw invalidField(field, `must be a duration like 7d, 90m, 30s or 1500ms, got ${JSON.stringify(value)}`);
    return positiveMs(Number(match[1]) * units[match[2]], field);
  }
  return positiveMs(value, field);
}

/** Why `value` would not come back unchanged from JSON, or null when it would. */
function unserialisable(value: unknown, path: string, seen: Set<object>): string | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : `${path} is ${value}, which JSON cannot hold`;
    case 'undefined':
    case 'bigint':
    case 'function':
    case 'symbol':
      return `${path} is a ${typeof value}, which JSON cannot hold`;
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) return `${path} refers back to itself (circular)`;
  const proto = Object.getPrototypeOf(object);
  const isArray = Array.isArray(object);
  if (!isArray && proto !== Object.prototype && proto !== null) {
    // A Date, Map or class instance would come back as a different type: a duplicate would not get the
    // same result as the first caller.
    return `${path} is a ${proto?.constructor?.name ?? 'non-plain object'}, only plain objects and arrays survive JSON`;
  }
  seen.add(object);
  for (const [k, v] of Object.entries(object)) {
    if (v === undefined && !isArray) continue; // an absent optional field: JSON drops it, meaning unchanged
    const reason = unserialisable(v, isArray ? `${path}[${k}]` : `${path}.${k}`, seen);
    if (reason) return reason;
  }
  seen.delete(object);
  return null;
}

/** JSON text of `value`, or a ValidationError naming the offending field. */
export function encodeJson(value: unknown, field: string): string {
  const reason = unserialisable(value, field, new Set());
  if (reason) throw invalidField(field, `cannot be stored: ${reason}`);
  return JSON.stringify(value);
}
