// Lua scripts live in .lua files (BullMQ's layout): `<name>-<numberOfKeys>.lua`, each opening with its
// KEYS, ARGV and reply. A strategy's scripts are one per operation, `<strategy>/<operation>-<n>.lua`, with no
// dispatch inside: a call runs a script's whole top level, so each holds only what its operation uses. `--@include <file>` pulls a shared snippet from lua/includes, so one piece of Lua
// is written once; each include's header says what it provides and requires, and a test checks that
// against the code (test/store/luaContract.test.ts). The SHA is computed at load, never kept by hand.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LuaScript {
  name: string;
  source: string;
  sha: string;
  numberOfKeys: number;
}

/** Which file each line range of a composed script comes from, to look up a Redis error's line. */
export interface ComposedPart {
  file: string;
  /** 1-based, in the composed source. */
  firstLine: number;
  lineCount: number;
}

export interface ComposedScript {
  source: string;
  parts: ComposedPart[];
}

export const luaDir = join(dirname(fileURLToPath(import.meta.url)), 'lua');
const includePattern = /^--@include (\S+)\s*$/;

/**
 * Expands `--@include` lines. An include must exist and appear once per script: the includes define
 * top-level locals, so a second copy would shadow the first and order would silently decide.
 */
export function composeLua(path: string, dir = luaDir): ComposedScript {
  const lines: string[] = [];
  const parts: ComposedPart[] = [];
  const seen = new Map<string, string>();
  const add = (file: string, text: string) => {
    let start = lines.length;
    const flush = (end: number) => {
      if (end > start) parts.push({ file, firstLine: start + 1, lineCount: end - start });
    };
    for (const line of text.replace(/\n$/, '').split('\n')) {
      const include = includePattern.exec(line);
      if (!include) {
        lines.push(line);
        continue;
      }
      const name = include[1];
      if (seen.has(name)) throw new Error(`Lua include ${name} is included twice in ${path} (by ${seen.get(name)} and by ${file})`);
      seen.set(name, file);
      let source: string;
      try {
        source = readFileSync(join(dir, 'includes', name), 'utf8');
      } catch {
        throw new Error(`Lua include ${name} (included by ${file}) not found in ${join(dir, 'includes')}`);
      }
      flush(lines.length);
      add(`includes/${name}`, source);
      start = lines.length;
    }
    flush(lines.length);
  };
  add(path, readFileSync(join(dir, path), 'utf8'));
  return { source: `${lines.join('\n')}\n`, parts };
}

/** Every script under `lua/` and its folders (every file but the includes), as paths relative to it. */
export function listScripts(dir = luaDir): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.lua') && !path.startsWith('includes'))
    .map((path) => path.split(sep).join('/'))
    .sort();
}

const cache = new Map<string, LuaScript>();

/** Loads `lua/<path>`; the number of keys comes from the file name's `-<n>.lua` suffix. */
export function loadScript(path: string): LuaScript {
  const hit = cache.get(path);
  if (hit) return hit;
  const match = /-(\d+)\.lua$/.exec(path);
  if (!match) throw new Error(`Lua script name must end in -<numberOfKeys>.lua: ${path}`);
  const { source } = composeLua(path);
  const script: LuaScript = {
    name: path.replace(/\.lua$/, ''),
    source,
    sha: createHash('sha1').update(source).digest('hex'),
    numberOfKeys: Number(match[1]),
  };
  cache.set(path, script);
  return script;
}
