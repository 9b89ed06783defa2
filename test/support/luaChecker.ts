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

/** Walks the tokens once with a stack of block scopes; `for` and `while` open their block at `do`. */
class ScopeWalker {
  readonly result: LuaCheck = { undefinedNames: [], redeclaredTopLevel: [], topLevel: [], topLevelUses: [] };
  private readonly scopes: Array<Map<string, number>> = [new Map()];
  private readonly brackets: string[] = [];
  /** A `for`'s variables, declared in the block its `do` opens. */
  private pendingLoopNames: LuaName[] = [];

  constructor(private readonly tokens: Token[]) {}

  run(): LuaCheck {
    for (let i = 0; i < this.tokens.length; i++) {
      const t = this.tokens[i];
      if (t.kind === 'symbol') i = this.symbol(i);
      else if (t.kind === 'name') this.name(i);
    }
    return this.result;
  }

  private declare(n: LuaName): void {
    const scope = this.scopes[this.scopes.length - 1];
    if (this.scopes.length === 1) {
      if (scope.has(n.name)) this.result.redeclaredTopLevel.push(n);
      this.result.topLevel.push(n);
    }
    scope.set(n.name, n.line);
  }

  private resolve(n: LuaName): void {
    for (let s = this.scopes.length - 1; s >= 0; s--) {
      const at = this.scopes[s].get(n.name);
      if (at === undefined) continue;
      if (s === 0) this.result.topLevelUses.push({ ...n, declaredAt: at });
      return;
    }
    if (!luaGlobals.has(n.name)) this.result.undefinedNames.push(n);
  }

  /** Names of a list `a, b, c` from index i; returns them and the index after. */
  private nameList(i: number): [LuaName[], number] {
    const names: LuaName[] = [];
    while (this.tokens[i]?.kind === 'name') {
      names.push({ name: this.tokens[i].text, line: this.tokens[i].line });
      if (this.tokens[i + 1]?.text !== ',') return [names, i + 1];
      i += 2;
    }
    return [names, i];
  }

  /** `function (params)`: opens the function's scope with its parameters; returns the index after. */
  private openFunction(i: number): number {
    while (this.tokens[i] && this.tokens[i].text !== '(') i++;
    const [params, after] = this.nameList(i + 1);
    this.scopes.push(new Map());
    params.forEach((p) => this.declare(p));
    return after;
  }

  /** A keyword or punctuation at i; returns the index of the last token it consumed. */
  private symbol(i: number): number {
    const t = this.tokens[i];
    switch (t.text) {
      case '{': case '(': case '[':
        this.brackets.push(t.text);
        return i;
      case '}': case ')': case ']':
        this.brackets.pop();
        return i;
      case 'local': {
        const next = this.tokens[i + 1];
        if (next?.text === 'function') {
          this.declare({ name: this.tokens[i + 2].text, line: this.tokens[i + 2].line });
          return this.openFunction(i + 3) - 1;
        }
        const [names, after] = this.nameList(i + 1);
        names.forEach((n) => this.declare(n));
        return after - 1;
      }
      case 'function': {
        // `function name(...)` (a global function) or an anonymous function expression.
        const next = this.tokens[i + 1];
        if (next?.kind === 'name') this.resolve({ name: next.text, line: next.line });
        return this.openFunction(i + 1) - 1;
      }
      case 'for': {
        const [names, after] = this.nameList(i + 1);
        this.pendingLoopNames = names;
        return after - 1;
      }
      case 'do':
        this.scopes.push(new Map());
        this.pendingLoopNames.forEach((n) => this.declare(n));
        this.pendingLoopNames = [];
        return i;
      case 'then': case 'repeat':
        this.scopes.push(new Map());
        return i;
      case 'elseif': case 'else':
        this.scopes.pop();
        if (t.text === 'else') this.scopes.push(new Map());
        return i;
      case 'end': case 'until':
        this.scopes.pop();
        return i;
      default:
        return i;
    }
  }

  /** A name that is neither declared here nor a field or table key: a use. */
  private name(i: number): void {
    const t = this.tokens[i];
    const prev = this.tokens[i - 1];
    if (prev && (prev.text === '.' || prev.text === ':')) return;
    const inTable = this.brackets[this.brackets.length - 1] === '{';
    const isKey = inTable && this.tokens[i + 1]?.text === '=' && (prev?.text === '{' || prev?.text === ',' || prev?.text === ';');
    if (!isKey) this.resolve({ name: t.text, line: t.line });
  }
}

/** Resolves every name of `src` with Lua's block scoping. */
export function checkLua(src: string): LuaCheck {
  return new ScopeWalker(tokenize(src)).run();
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
