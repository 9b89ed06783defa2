// BENCH_SCALE_PROFILE_DIR=<dir>: the service child records a CPU profile and a sampled heap profile (what is
// still allocated at the end, by allocation site) and writes them there when stopped. Open them in Chrome's
// DevTools, or sum them with `npx tsx bench/scale/profile.ts <dir>`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export async function startProfiler(dir: string): Promise<() => Promise<void>> {
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 64 * 1024 });
  return async () => {
    const heap = await session.post('HeapProfiler.stopSampling');
    writeFileSync(join(dir, `service-${process.pid}.heapprofile`), JSON.stringify(heap.profile));
    const cpu = await session.post('Profiler.stop');
    writeFileSync(join(dir, `service-${process.pid}.cpuprofile`), JSON.stringify(cpu.profile));
    session.disconnect();
  };
}

interface CpuNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number; children?: number[] }
interface HeapNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: HeapNode[] }

const where = (f: { functionName: string; url: string; lineNumber: number }) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;

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
