// The README's error table and the registry must list the same codes with the same statuses.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../src/errors.js';

describe('error codes', () => {
  it('are all documented in the README with their HTTP status, and nothing else is', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const documented = Object.fromEntries(
      [...readme.matchAll(/^\| `(PP_ERR_[A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]),
    );
    const registered = Object.fromEntries(Object.entries(errorCodes).map(([code, { status }]) => [code, status]));
    expect(documented).toEqual(registered);
  });
});
