// BENCH_SCALE_PROFILE_DIR=<dir>: the service child records a CPU profile and a sampled heap profile (what is
// still allocated at the end, by allocation site; Node's --cpu-prof and --heap-prof) and writes them there when
// stopped. Open them in Chrome's DevTools, or sum them with `npx tsx bench/scale/profile.ts <dir>`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface CpuNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number; children?: number[] }
interface HeapNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: HeapNode[] }

const where = (f: { functionName: string; url: string; lineNumber: number }) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;

/** Top self time and top retained allocation sites, by function. */
function summarise(dir: string, file: string): void {
  const text = readFileSync(join(dir, file), 'utf8');
  const totals = new Map<string, number>();
  if (file.endsWith('.cpuprofile')) {
    const profile = JSON.parse(text) as { nodes: CpuNode[] };
    for (const n of profile.nodes) totals.set(where(n.callFrame), (totals.get(where(n.callFrame)) ?? 0) + n.hitCount);
  } else {
    const walk = (n: HeapNode) => {
      totals.set(where(n.callFrame), (totals.get(where(n.callFrame)) ?? 0) + n.selfSize);
      n.children.forEach(walk);
    };
    walk((JSON.parse(text) as { head: HeapNode }).head);
  }
  const sum = [...totals.values()].reduce((a, b) => a + b, 0);
  console.log(`\n${file}`);
  for (const [name, v] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${((100 * v) / sum).toFixed(1).padStart(5)} %  ${name}`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const dir = process.argv[2]!;
  for (const file of (await import('node:fs')).readdirSync(dir).filter((f) => /\.(cpu|heap)profile$/.test(f))) summarise(dir, file);
}
