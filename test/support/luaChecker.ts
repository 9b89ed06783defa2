// A small static checker for the composed Lua scripts. The includes share top-level locals by name; a
// name used before its `local` (or never declared) compiles in Lua to a global lookup, which is nil at
// run time and fails only on the path that reaches it. This walks the tokens with Lua's block scoping
// and reports every name that does not resolve to a local declared before it, a builtin, or a Redis
// script global. luacheck is not packaged for our machines; this covers the one rule we rely on.

export interface LuaName {
  name: string;
  line: number;
}

export interface LuaCheck {
  /** Names that resolve to no local and no known global: each a nil at run time. */
  undefinedNames: LuaName[];
  /** Top-level locals declared twice: the second hides the first from everything after it. */
  redeclaredTopLevel: LuaName[];
  /** Top-level locals, in order. */
  topLevel: LuaName[];
  /** Names used, with the top-level local each resolved to (by its declaration line). */
  topLevelUses: Array<LuaName & { declaredAt: number }>;
}

/** Lua 5.1 builtins and what Redis gives a script. */
export const luaGlobals = new Set([
  'redis', 'KEYS', 'ARGV', 'cmsgpack', 'cjson', 'bit', 'struct',
  'string', 'table', 'math', 'tonumber', 'tostring', 'type', 'pairs', 'ipairs', 'unpack', 'select', 'next',
  'setmetatable', 'getmetatable', 'rawget', 'rawset', 'error', 'pcall', 'assert',
]);

const keywords = new Set([
  'and', 'break', 'do', 'else', 'elseif', 'end', 'false', 'for', 'function', 'if', 'in', 'local', 'nil', 'not',
  'or', 'repeat', 'return', 'then', 'true', 'until', 'while',
]);

interface Token {
  text: string;
  line: number;
  kind: 'name' | 'symbol' | 'literal';
}

function longBracketEnd(src: string, i: number): { level: number } | null {
  const m = /^\[(=*)\[/.exec(src.slice(i, i + 20));
  return m ? { level: m[1].length } : null;
}

/** Tokens without comments; strings and numbers become one literal token. */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  const skipLong = (level: number) => {
    const close = `]${'='.repeat(level)}]`;
    const end = src.indexOf(close, i);
    const stop = end === -1 ? src.length : end + close.length;
    for (let j = i; j < stop; j++) if (src[j] === '\n') line++;
    i = stop;
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (src.startsWith('--', i)) {
      i += 2;
      const long = longBracketEnd(src, i);
      if (long) skipLong(long.level);
      else while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '[' && longBracketEnd(src, i)) {
      tokens.push({ text: '<string>', line, kind: 'literal' });
      skipLong(longBracketEnd(src, i)!.level);
    } else if (c === '"' || c === "'") {
      tokens.push({ text: '<string>', line, kind: 'literal' });
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\') i++;
        else if (src[i] === '\n') line++;
        i++;
      }
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 200))![0];
      tokens.push({ text: m, line, kind: keywords.has(m) ? 'symbol' : 'name' });
      i += m.length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)/.exec(src.slice(i, i + 60))![0];
      tokens.push({ text: m, line, kind: 'literal' });
      i += m.length;
    } else {
      const m = /^(\.\.\.|\.\.|==|~=|<=|>=|.)/.exec(src.slice(i, i + 3))![0];
      tokens.push({ text: m, line, kind: 'symbol' });
      i += m.length;
    }
  }
  return tokens;
}

/** Resolves every name of `src` with Lua's block scoping; `for` and `while` open their block at `do`. */
export function checkLua(src: string): LuaCheck {
  const tokens = tokenize(src);
  const scopes: Array<Map<string, number>> = [new Map()];
  const result: LuaCheck = { undefinedNames: [], redeclaredTopLevel: [], topLevel: [], topLevelUses: [] };
  const brackets: string[] = [];
  /** A `for`'s variables, declared in the block its `do` opens. */
  let pendingLoopNames: LuaName[] = [];

  const declare = (n: LuaName) => {
    const scope = scopes[scopes.length - 1];
    if (scopes.length === 1) {
      if (scope.has(n.name)) result.redeclaredTopLevel.push(n);
      result.topLevel.push(n);
    }
    scope.set(n.name, n.line);
  };
  const resolve = (n: LuaName) => {
    for (let s = scopes.length - 1; s >= 0; s--) {
      const at = scopes[s].get(n.name);
      if (at !== undefined) {
        if (s === 0) result.topLevelUses.push({ ...n, declaredAt: at });
        return;
      }
    }
    if (!luaGlobals.has(n.name)) result.undefinedNames.push(n);
  };
  /** Names of a list `a, b, c` from index i; returns them and the index after. */
  const nameList = (i: number): [LuaName[], number] => {
    const names: LuaName[] = [];
    while (tokens[i]?.kind === 'name') {
      names.push({ name: tokens[i].text, line: tokens[i].line });
      if (tokens[i + 1]?.text !== ',') return [names, i + 1];
      i += 2;
    }
    return [names, i];
  };
  /** `function (params)`: opens the function's scope with its parameters. */
  const openFunction = (i: number): number => {
    while (tokens[i] && tokens[i].text !== '(') i++;
    const [params, after] = nameList(i + 1);
    scopes.push(new Map());
    params.forEach(declare);
    return after;
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const prev = tokens[i - 1];
    if (t.kind === 'symbol') {
      switch (t.text) {
        case '{': case '(': case '[':
          brackets.push(t.text);
          break;
        case '}': case ')': case ']':
          brackets.pop();
          break;
        case 'local':
          if (tokens[i + 1]?.text === 'function') {
            declare({ name: tokens[i + 2].text, line: tokens[i + 2].line });
            i = openFunction(i + 3) - 1;
          } else {
            const [names, after] = nameList(i + 1);
            names.forEach(declare);
            i = after - 1;
          }
          break;
        case 'function':
          // `function name(...)` (a global function) or an anonymous function expression.
          if (tokens[i + 1]?.kind === 'name') resolve({ name: tokens[i + 1].text, line: tokens[i + 1].line });
          i = openFunction(i + 1) - 1;
          break;
        case 'for': {
          const [names, after] = nameList(i + 1);
          pendingLoopNames = names;
          i = after - 1;
          break;
        }
        case 'do':
          scopes.push(new Map());
          pendingLoopNames.forEach(declare);
          pendingLoopNames = [];
          break;
        case 'then': case 'repeat':
          scopes.push(new Map());
          break;
        case 'elseif': case 'else':
          scopes.pop();
          if (t.text === 'else') scopes.push(new Map());
          break;
        case 'end': case 'until':
          scopes.pop();
          break;
      }
      continue;
    }
    if (t.kind !== 'name') continue;
    if (prev && (prev.text === '.' || prev.text === ':')) continue; // a field or method
    const next = tokens[i + 1];
    const inTable = brackets[brackets.length - 1] === '{';
    if (inTable && next?.text === '=' && (prev?.text === '{' || prev?.text === ',' || prev?.text === ';')) continue; // a key
    resolve({ name: t.text, line: t.line });
  }
  return result;
}

export interface IncludeHeader {
  provides: string[];
  requires: string[];
}

/**
 * `-- provides: a, b` and `-- requires: c` lines of an include's opening comment; a line of `--` and
 * at least three spaces right after one continues its list.
 */
export function parseHeader(src: string): IncludeHeader {
  const header: IncludeHeader = { provides: [], requires: [] };
  let current: keyof IncludeHeader | undefined;
  for (const line of src.split('\n')) {
    if (!line.startsWith('--')) break;
    const key = /^--\s*(provides|requires):(.*)$/.exec(line);
    const more = current && /^--\s{3,}(\S.*)$/.exec(line);
    const list = key ? key[2] : more ? more[1] : undefined;
    current = key ? (key[1] as keyof IncludeHeader) : more ? current : undefined;
    if (list !== undefined && current) header[current].push(...list.split(',').map((s) => s.trim()).filter((s) => s && s !== '(nothing)'));
  }
  return header;
}
