// The layers of src/ (docs/architecture.md, Layers), checked so they stay true: no import cycle between any two
// files, and every import between parts of the tree goes down the table below. Imports are read as text by the
// TypeScript scanner, type-only imports included: a type cycle still means neither file can be read first.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Data shapes: what every layer speaks, so they import nothing of ours. */
const shapes = ['types.ts', 'errors.ts'];
/** Small helpers with no business of their own: they import the shapes and each other, every part above them. */
const helpers = ['clock.ts', 'text.ts', 'ownEntry.ts', 'parseTime.ts', 'boundedLru.ts'];

/**
 * Each part of src/ above the helpers with the parts it may import besides its own files, the shapes and the
 * helpers. A part is a folder or a file; a file belongs to the longest part that holds it. Bottom first.
 */
const mayImport: Record<string, readonly string[]> = {
  // The storage ports and the keys: what features talk to instead of a database.
  'store/keys': [],
  'store/ports': ['store/keys'],
  // The engines behind the ports; they know nothing of the features that use them.
  'store/redis': ['store/keys', 'store/ports'],
  'store/memory': ['store/keys', 'store/ports'],
  'store/postgres': ['store/ports'],
  'store/kitWithAuthority.ts': ['store/ports', 'store/postgres'],
  // Features over the ports: success rates and the kit are independent of each other and of everything above.
  stats: ['store/keys', 'store/ports'],
  kit: ['store/keys', 'store/ports'],
  sim: [],
  'observer.ts': [],
  // Features over success rates, apart from each other.
  routing: ['store/keys', 'store/ports', 'stats'],
  alerts: ['store/keys', 'store/ports', 'stats'],
  // Redis Streams ingest reads a Redis stream, so it takes the Redis connection itself.
  ingest: ['store/keys', 'store/redis', 'stats'],
  // History writes what the features produce (minutes, alert and breaker transitions) into PostgreSQL; it owns
  // that database (clients, migrations), so it also opens it for the kit's PostgreSQL authority.
  history: ['store/ports', 'store/postgres', 'alerts', 'routing'],
  // Operator state keeps the alerts' and the breakers' state across a Redis restart.
  operatorState: ['store/keys', 'store/ports', 'alerts', 'routing'],
  // The options and the library's entry point assemble every feature on its engines.
  'options.ts': ['store/ports', 'stats', 'alerts', 'routing', 'operatorState'],
  'pulse.ts': ['observer.ts', 'options.ts', 'store/ports', 'store/redis', 'store/memory', 'store/kitWithAuthority.ts', 'stats', 'kit', 'alerts', 'routing', 'history', 'operatorState'],
  // The service and the command line sit on top: '*' is every part above but these three.
  server: ['*'],
  cli: ['*', 'server'],
  'index.ts': ['*'],
};

const topParts = ['server', 'cli', 'index.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every file of src/ with the files of src/ it imports (static, dynamic and re-exports), as paths under src/. */
function importGraph(root: string): Map<string, string[]> {
  const files = sourceFiles(root);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => normalize(join(dirname(file), name.replace(/\.js$/, '.ts'))));
    graph.set(file, [...new Set(targets)].filter((target) => known.has(target)).sort());
  }
  return graph;
}

/** The strongly connected groups of more than one file (Tarjan), each as one cycle through it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) groups.push(group);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups.map((group) => cycleThrough(graph, new Set(group)));
}

/** One closed path inside a strongly connected group, from its first file (breadth first, so it is short). */
function cycleThrough(graph: Map<string, string[]>, group: Set<string>): string[] {
  const start = [...group].sort()[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!group.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** The part a file of src/ belongs to: the longest part name that is the file or a folder holding it. */
function partOf(file: string): string {
  const path = file.replace(/^src\//, '');
  const holders = [...shapes, ...helpers, ...Object.keys(mayImport)].filter((part) => path === part || path.startsWith(`${part}/`));
  return holders.sort((a, b) => b.length - a.length)[0] ?? `(no part) ${path}`;
}

function allowed(from: string, to: string): boolean {
  if (shapes.includes(from)) return false;
  if (shapes.includes(to) || helpers.includes(to)) return true;
  const rule = mayImport[from] ?? [];
  return rule.includes(to) || (rule.includes('*') && !topParts.includes(to));
}

describe('the layers of src/', () => {
  const graph = importGraph('src');

  it('has no import cycle', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('imports only down the table of parts', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const from = partOf(file);
        const to = partOf(target);
        if (from !== to && !allowed(from, to)) wrong.push(`${file} → ${target} (${from} may not import ${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('places every file in a part', () => {
    expect([...graph.keys()].map(partOf).filter((part) => part.startsWith('(no part)'))).toEqual([]);
  });

  it('has a table without cycles, so the parts stack up', () => {
    const parts = Object.keys(mayImport);
    const below = (part: string): string[] => mayImport[part].flatMap((p) => (p === '*' ? parts.filter((q) => !topParts.includes(q)) : [p]));
    const table = new Map(parts.map((part) => [part, below(part).filter((p) => p !== part)]));
    expect(parts.flatMap((part) => mayImport[part].filter((p) => p !== '*' && !parts.includes(p)))).toEqual([]);
    expect(cycles(table)).toEqual([]);
  });
});

describe('the cycle finder', () => {
  it('finds a cycle and names its files in order', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
  });

  it('finds none in a chain', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', []]]))).toEqual([]);
  });
});

describe('one place for each rule', () => {
  const files = sourceFiles('src').map((path) => ({ path, text: readFileSync(path, 'utf8') }));
  const holding = (pattern: RegExp) => files.filter((f) => pattern.test(f.text)).map((f) => f.path);

  it('defines the alert levels and their defaults once, in stats/severity.ts', () => {
    expect(holding(/^(export )?(interface Thresholds\b|type (Thresholds|Levels) =)/m)).toEqual(['src/stats/severity.ts']);
    expect(holding(/warn: 0\.95/)).toEqual(['src/stats/severity.ts']);
    expect(holding(/\{ warn: number; major: number; critical: number \}/)).toEqual([]);
  });

  it('spells the dimension name and value rules once, in stats/validate.ts', () => {
    expect(holding(/\[A-Za-z\]\[A-Za-z0-9_\]|characters of \[A-Za-z0-9_\]|A-Z a-z 0-9 _,/)).toEqual(['src/stats/validate.ts']);
    expect(holding(/\[A-Za-z0-9\._:\/\+-\]/)).toEqual(['src/stats/validate.ts']);
  });
});
