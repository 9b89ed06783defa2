// The Lua strategy contract, checked: every composed script resolves every name it uses to a local
// declared before the use (or a Lua/Redis global), and each include's header lists exactly what it
// provides to the other parts and what it requires from them.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { composeLua, listScripts, luaDir, type ComposedScript } from '../../src/store/redis/scripts.js';
import { checkLua, parseHeader } from '../support/luaChecker.js';

const scripts = listScripts();

function partAt(script: ComposedScript, line: number) {
  return script.parts.find((p) => line >= p.firstLine && line < p.firstLine + p.lineCount)!;
}

function where(script: ComposedScript, line: number): string {
  const part = partAt(script, line);
  return `${part.file}:${line - part.firstLine + 1}`;
}

interface PartUse {
  /** Names the part's code takes from other parts. */
  requires: Set<string>;
  /** Names other parts take from it. */
  usedByOthers: Set<string>;
  /** Its top-level locals used anywhere. */
  used: Set<string>;
  declared: Set<string>;
}

/** What each file (script or include) declares, uses and lends, over every script it is part of. */
function contractOfParts(): Map<string, PartUse> {
  const byFile = new Map<string, PartUse>();
  const of = (file: string) => {
    let use = byFile.get(file);
    if (!use) {
      use = { requires: new Set(), usedByOthers: new Set(), used: new Set(), declared: new Set() };
      byFile.set(file, use);
    }
    return use;
  };
  for (const path of scripts) {
    const script = composeLua(path);
    const check = checkLua(script.source);
    for (const n of check.topLevel) of(partAt(script, n.line).file).declared.add(n.name);
    for (const u of check.topLevelUses) {
      const user = partAt(script, u.line).file;
      const owner = partAt(script, u.declaredAt).file;
      of(owner).used.add(u.name);
      if (user !== owner) {
        of(user).requires.add(u.name);
        of(owner).usedByOthers.add(u.name);
      }
    }
  }
  return byFile;
}

const sorted = (names: Iterable<string>) => [...names].sort();

describe('Lua scripts: every name defined before use', () => {
  it.each(scripts)('%s', (path) => {
    const script = composeLua(path);
    const check = checkLua(script.source);
    expect(check.undefinedNames.map((n) => `${n.name} (${where(script, n.line)}) is not defined before use`)).toEqual([]);
    expect(check.redeclaredTopLevel.map((n) => `${n.name} (${where(script, n.line)}) is declared twice`)).toEqual([]);
  });
});

describe('Lua includes: headers say what each provides and requires', () => {
  const parts = contractOfParts();
  const includes = sorted([...parts.keys()].filter((f) => f.startsWith('includes/')));

  it('finds the includes', () => {
    expect(includes.length).toBeGreaterThanOrEqual(15);
  });

  it.each(includes)('%s', (file) => {
    const use = parts.get(file)!;
    const header = parseHeader(readFileSync(join(luaDir, file), 'utf8'));
    expect({ file, provides: sorted(header.provides) }).toEqual({ file, provides: sorted(use.usedByOthers) });
    expect({ file, requires: sorted(header.requires) }).toEqual({ file, requires: sorted(use.requires) });
    // Dead code: a top-level local no script uses.
    expect({ file, unused: sorted([...use.declared].filter((n) => !use.used.has(n))) }).toEqual({ file, unused: [] });
  });

  it('scripts use no top-level local they never read', () => {
    const unused = [...parts]
      .filter(([file]) => !file.startsWith('includes/'))
      .flatMap(([file, use]) => [...use.declared].filter((n) => !use.used.has(n)).map((n) => `${file}: ${n}`));
    expect(unused).toEqual([]);
  });
});

describe('scripts: one per operation', () => {
  it('lists every folder of scripts', () => {
    const folders = new Set(scripts.map((path) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.')));
    expect([...folders].sort()).toEqual(['.', 'buckets', 'coordination', 'kit', 'zset']);
  });

  it.each(scripts)('%s dispatches on no operation argument', (path) => {
    expect(composeLua(path).source).not.toMatch(/\bop\s*==|ARGV\[1\]\s*==/);
  });
});

describe('the checker', () => {
  it('reports a name used before its local, a missing one, and a redeclared one', () => {
    const check = checkLua(
      ['local function a() return b() end', 'local function b() return 1 end', 'local c = missing', 'local c = 2', 'return a() + c'].join('\n'),
    );
    expect(check.undefinedNames).toEqual([
      { name: 'b', line: 1 },
      { name: 'missing', line: 3 },
    ]);
    expect(check.redeclaredTopLevel).toEqual([{ name: 'c', line: 4 }]);
  });

  it('follows block scopes, loops, fields, table keys, strings and comments', () => {
    const src = [
      "local t = { key = 1, ['k'] = 2 } -- a comment naming nothing",
      'for i, v in ipairs(t) do t.x = v end',
      'if t then local inner = 1 else local other = inner end',
      "local s = 'not_a_name' .. [[ nor_this ]]",
      '--[[ neither',
      'this ]]',
      'return t.key, s',
    ].join('\n');
    expect(checkLua(src).undefinedNames).toEqual([{ name: 'inner', line: 3 }]);
  });
});

describe('the include loader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lua-loader-'));
  mkdirSync(join(dir, 'includes'));
  writeFileSync(join(dir, 'includes', 'a.lua'), 'local a = 1\n--@include b.lua\n');
  writeFileSync(join(dir, 'includes', 'b.lua'), 'local b = 2\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('expands nested includes and maps each composed line back to its file', () => {
    writeFileSync(join(dir, 'ok-1.lua'), '-- top\n--@include a.lua\nreturn a + b\n');
    const composed = composeLua('ok-1.lua', dir);
    expect(composed.source).toBe('-- top\nlocal a = 1\nlocal b = 2\nreturn a + b\n');
    expect(composed.parts).toEqual([
      { file: 'ok-1.lua', firstLine: 1, lineCount: 1 },
      { file: 'includes/a.lua', firstLine: 2, lineCount: 1 },
      { file: 'includes/b.lua', firstLine: 3, lineCount: 1 },
      { file: 'ok-1.lua', firstLine: 4, lineCount: 1 },
    ]);
  });

  it('refuses a missing include, naming it and who included it', () => {
    writeFileSync(join(dir, 'missing-1.lua'), '--@include nowhere.lua\n');
    expect(() => composeLua('missing-1.lua', dir)).toThrow(/include nowhere\.lua \(included by missing-1\.lua\) not found/);
  });

  it('refuses an include included twice, naming both places', () => {
    writeFileSync(join(dir, 'twice-1.lua'), '--@include b.lua\n--@include a.lua\n');
    expect(() => composeLua('twice-1.lua', dir)).toThrow(/b\.lua is included twice in twice-1\.lua \(by twice-1\.lua and by includes\/a\.lua\)/);
  });
});
