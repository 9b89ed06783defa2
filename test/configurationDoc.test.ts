// docs/configuration.md covers every setting there is: each service setting (the config parser's keys) is a row
// of the `paypulse serve` table with its environment variable, and each `createPulse` option (the keys of
// PulseOptions in src/options.ts) a row of the options table. A setting added without its row fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envFields, serviceSettingNames } from '../src/server/config.js';

const doc = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');

/** The first-column names of the table under `heading`, up to the next heading of its level or higher. */
function tableRows(heading: string): Map<string, string> {
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start, `${heading} is a heading of docs/configuration.md`).toBeGreaterThanOrEqual(0);
  const level = heading.split(' ')[0]!;
  const rest = doc.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const name = /^\| `([A-Za-z]+)` \|/.exec(line)?.[1];
    if (name) rows.set(name, line);
  }
  return rows;
}

/** The names PulseOptions declares, read from its source: the type has no runtime form. */
function pulseOptionNames(): string[] {
  const source = readFileSync(new URL('../src/options.ts', import.meta.url), 'utf8');
  const body = /export interface PulseOptions \{\n([\s\S]*?)\n\}/.exec(source)?.[1] ?? '';
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]!);
}

describe('docs/configuration.md', () => {
  const serve = tableRows('## `paypulse serve`');

  it('has a row for every service setting, sections included', () => {
    const missing = serviceSettingNames.filter((name) => !serve.has(name) && !doc.includes(`(\`${name}\`, file only)`));
    expect(missing).toEqual([]);
  });

  it('names every environment variable on its setting\'s row', () => {
    const missing = envFields.filter(([variable, field]) => !serve.get(field)?.includes(variable)).map(([variable]) => variable);
    expect(missing).toEqual([]);
  });

  it('has a row for every createPulse option', () => {
    const options = tableRows('## `createPulse(options)`');
    const names = pulseOptionNames();
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((name) => !options.has(name))).toEqual([]);
  });

  it('says that reads need the token too', () => {
    const token = serve.get('token') ?? '';
    expect(token).not.toMatch(/reads stay open/);
    expect(token).toMatch(/reads/);
  });
});
