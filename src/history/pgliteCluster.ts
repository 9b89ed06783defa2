// Where embedded PGlite keeps its files, and how a new database folder gets them. PostgreSQL's initdb, run inside
// a process, leaves that process hundreds of MB more RSS for good (the WebAssembly memory it grew, its compiled
// code), and takes seconds; so it runs in a child process, once per PGlite version and user, into a template
// folder that every new database copies. A database opened from a folder keeps its pages in the operating
// system's file cache rather than the process's heap (docs/decisions/066-embedded-postgres-from-a-template-folder.md).
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const hasCluster = (dir: string) => existsSync(join(dir, 'PG_VERSION'));

// Folders that die with the process (scratch databases never closed): removed on any exit Node sees.
const ownFolders = new Set<string>();
process.once('exit', () => {
  for (const dir of ownFolders) rmSync(dir, { recursive: true, force: true });
});

let template: Promise<string> | undefined;

/** The template folder, made on first use; concurrent processes each build one and the first rename wins. */
async function templateFolder(startParams: readonly string[]): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
  const final = join(tmpdir(), `paypulse-pglite-${version}-${userInfo().uid}`);
  if (hasCluster(final)) return final;
  const building = await mkdtemp(`${final}-building-`);
  try {
    const script = `require(${JSON.stringify(entry)}).PGlite.create({ dataDir: process.argv[1], startParams: JSON.parse(process.argv[2]) }).then((db) => db.close())`;
    await run(process.execPath, ['-e', script, building, JSON.stringify(startParams)]);
    await rename(building, final).catch((err: NodeJS.ErrnoException) => {
      if (!hasCluster(final)) throw err;
    });
    return final;
  } finally {
    await rm(building, { recursive: true, force: true });
  }
}

/** Gives `dir` a new database cluster unless it holds one already. */
export async function ensureCluster(dir: string, startParams: readonly string[]): Promise<void> {
  if (hasCluster(dir)) return;
  template ??= templateFolder(startParams).catch((err: unknown) => {
    template = undefined;
    throw err;
  });
  await cp(await template, dir, { recursive: true });
}

const scratchPrefix = 'paypulse-history-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Scratch folders of processes that died without an exit Node saw (SIGKILL, a crash): ≈ 40 MB each. */
async function removeOrphans(): Promise<void> {
  for (const name of readdirSync(tmpdir())) {
    const pid = name.startsWith(scratchPrefix) ? Number(name.slice(scratchPrefix.length).split('-')[0]) : NaN;
    if (Number.isSafeInteger(pid) && pid > 0 && !alive(pid)) await rm(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** A folder of its own for a database that should not outlive its process; removed by the returned function. */
export async function scratchFolder(): Promise<{ dir: string; remove(): Promise<void> }> {
  await removeOrphans();
  const dir = await mkdtemp(join(tmpdir(), `${scratchPrefix}${process.pid}-`));
  ownFolders.add(dir);
  return {
    dir,
    async remove() {
      await rm(dir, { recursive: true, force: true });
      ownFolders.delete(dir);
    },
  };
}
