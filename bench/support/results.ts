// Every benchmark keeps one result file in git, its latest run: older runs are history (git log), and a
// reader comparing figures wants the current ones.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Writes `bench/<benchmark>/results/latest.json` and returns its path relative to the checkout. */
export function writeLatestResult(benchmark: string, result: unknown): string {
  const dir = fileURLToPath(new URL(`../${benchmark}/results/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}latest.json`, `${JSON.stringify(result, null, 2)}\n`);
  return `bench/${benchmark}/results/latest.json`;
}
