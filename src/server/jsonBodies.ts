// The JSON body parser. Fastify's default refuses `__proto__` keys (prototype pollution) but answers "Body is
// not valid JSON", which sends a client looking for a syntax error that is not there. This one refuses the
// same keys and names where they are: `outcomes.3.dims.__proto__` is item 3, field `dims.__proto__`.
import type { FastifyInstance } from 'fastify';
import { PayPulseError, ValidationError, type FieldIssue } from '../errors.js';

/** Index of problems of the body itself (as in the outcome validator's replies). */
const bodyIndex = -1;

// JSON.parse makes `__proto__` an own data property, harmless in itself; the harm comes when code later
// copies the object with assignment. A `constructor.prototype` pair is refused for the same reason.
function forbiddenPath(root: unknown): string[] | null {
  // An explicit stack, not recursion: a 5 MB body may nest far deeper than the call stack goes.
  const stack: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (key === '__proto__') return [...path, key];
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) {
        return [...path, key, 'prototype'];
      }
      if (typeof child === 'object' && child !== null) stack.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

function issueAt(path: string[]): FieldIssue {
  const reason = 'is a reserved name (it could rewrite object prototypes); rename the field';
  if (path[0] === 'outcomes' && path.length > 2 && /^\d+$/.test(path[1]!)) {
    return { index: Number(path[1]), field: path.slice(2).join('.'), reason };
  }
  return { index: bodyIndex, field: path.join('.'), reason };
}

export function parseJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const body = text as string;
    if (body.length === 0) return done(new PayPulseError('PP_ERR_VALIDATION', 'the body is empty; send a JSON object'));
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (err) {
      return done(new PayPulseError('PP_ERR_VALIDATION', `the body is not valid JSON: ${(err as Error).message}`));
    }
    // The walk is skipped for the usual body: neither key can appear without these letters or a \u escape.
    const suspicious = body.includes('__proto__') || body.includes('constructor') || body.includes('\\u');
    const path = suspicious ? forbiddenPath(parsed) : null;
    if (path) return done(new ValidationError([issueAt(path)]));
    done(null, parsed);
  });
}
