// Lua scripts live in .lua files (BullMQ's layout): `<name>-<numberOfKeys>.lua`, each opening with its
// KEYS, ARGV and reply. `--@include <file>` pulls a shared snippet from lua/includes, so one piece of Lua
// is written once. The SHA is computed at load, never kept by hand.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LuaScript {
  name: string;
  source: string;
  sha: string;
  numberOfKeys: number;
}

const luaDir = join(dirname(fileURLToPath(import.meta.url)), 'lua');

function expandIncludes(source: string, seen: Set<string>): string {
  return source.replace(/^--@include (\S+)\s*$/gm, (_line, file: string) => {
    if (seen.has(file)) return `-- (${file} already included)`;
    seen.add(file);
    return expandIncludes(readFileSync(join(luaDir, 'includes', file), 'utf8'), seen);
  });
}

const cache = new Map<string, LuaScript>();

/** Loads `lua/<path>`; the number of keys comes from the file name's `-<n>.lua` suffix. */
export function loadScript(path: string): LuaScript {
  const hit = cache.get(path);
  if (hit) return hit;
  const match = /-(\d+)\.lua$/.exec(path);
  if (!match) throw new Error(`Lua script name must end in -<numberOfKeys>.lua: ${path}`);
  const source = expandIncludes(readFileSync(join(luaDir, path), 'utf8'), new Set());
  const script: LuaScript = {
    name: path.replace(/\.lua$/, ''),
    source,
    sha: createHash('sha1').update(source).digest('hex'),
    numberOfKeys: Number(match[1]),
  };
  cache.set(path, script);
  return script;
}
