// A fresh PGlite database as a tarball, made once per machine and PGlite version, so the service never runs
// initdb in its own process. initdb inside PGlite grows the process's WebAssembly memory to ≈ 660 MB, which
// never shrinks: a node process with one new in-memory PGlite sat at ≈ 730–850 MB RSS, one loading this
// tarball at ≈ 390–450 MB (docs/benchmarks.md). The tarball is made in a child process, whose memory goes
// with it, and cached in the temporary folder; any failure (no node binary to spawn, an unwritable or
// corrupt cache) falls back to the next way down, the last being initdb in this process as before.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const pgliteUrl = import.meta.resolve('@electric-sql/pglite');

/** PGlite's version decides the data directory's format, so it names the cache. */
function pgliteVersion(): string {
  const manifest = fileURLToPath(new URL('../package.json', pgliteUrl));
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Per user: a file another user could have placed is never loaded (see `readCache`). */
export function seedCachePath(dir = tmpdir()): string {
  return join(dir, `paypulse-pglite-${pgliteVersion()}-${process.getuid?.() ?? 'u'}.tar.gz`);
}

// Run with `node --input-type=module -e`: a file of its own would be a .ts one under tsx and a .js one
// built, while this runs the same in both. argv[1] is PGlite's entry point.
const childScript = `
const { PGlite } = await import(process.argv[1]);
const db = await PGlite.create();
const dump = await db.dumpDataDir('gzip');
await db.close();
process.stdout.write(Buffer.from(await dump.arrayBuffer()));
`;

/** The gzip'd tarball made by a child process, or an error naming why not. */
export function makeSeedInChild(timeoutMs = 120_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', childScript, pgliteUrl], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`the PGlite seed child exited with ${code ?? signal}: ${err.trim().slice(-500)}`));
    });
  });
}

// gunzip's output is never a SharedArrayBuffer; the view spares a copy of 40 MB.
const asBlob = (tar: Buffer) => new Blob([new Uint8Array(tar.buffer as ArrayBuffer, tar.byteOffset, tar.byteLength)]);

function readCache(path: string): Blob | undefined {
  try {
    if (process.getuid && statSync(path).uid !== process.getuid()) return undefined;
    // gunzip checks the CRC and the length: a truncated or damaged file throws here, not inside PGlite.
    return asBlob(gunzipSync(readFileSync(path)));
  } catch {
    return undefined; // absent, unreadable or corrupt: made again
  }
}

/** Written beside its final name and renamed, so concurrent first starts each see a whole file or none. */
function writeCache(path: string, gzipped: Buffer): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(temporary, gzipped, { mode: 0o600 });
    renameSync(temporary, path);
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // never written
    }
  }
}

/**
 * The uncompressed tarball of a fresh database, from the cache or made now; undefined when it cannot be made,
 * and the caller runs initdb itself.
 */
export async function freshDatabaseTar(cachePath = seedCachePath()): Promise<Blob | undefined> {
  const cached = readCache(cachePath);
  if (cached) return cached;
  try {
    const gzipped = await makeSeedInChild();
    const tar = asBlob(gunzipSync(gzipped));
    writeCache(cachePath, gzipped);
    return tar;
  } catch {
    return undefined;
  }
}
