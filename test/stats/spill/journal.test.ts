// The spill journal on a real file system: batches come back in order, a file is deleted only when released,
// a SIGKILLed writer loses nothing it acknowledged, a torn last frame is cut off, and the size is bounded.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalFullError, SpillJournal } from '../../../src/stats/spill/journal.js';
import type { Outcome } from '../../../src/types.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'paypulse-spill-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const batch = (from: number, n: number): Outcome[] =>
  Array.from({ length: n }, (_, i) => ({ channel: 'alipay', requestId: `r${from + i}`, status: 'failure', at: 1_000 + from + i, code: 'E', dims: { method: 'card' } }));

async function drain(journal: SpillJournal): Promise<Outcome[]> {
  const all: Outcome[] = [];
  for (let file = await journal.takeOldest(); file; file = await journal.takeOldest()) {
    for (const b of file.batches) all.push(...b);
    await journal.release(file.seq);
  }
  return all;
}

describe('spill journal', () => {
  it('gives the batches back oldest first across files, and forgets a file only when it is released', async () => {
    const dir = freshDir();
    const journal = await SpillJournal.open({ dir, fileBytes: 2_000 });
    for (let i = 0; i < 10; i++) await journal.append(batch(i * 10, 10));
    expect(journal.pendingOutcomes).toBe(100);
    expect(readdirSync(dir).length).toBeGreaterThan(1);

    const first = await journal.takeOldest();
    expect(first!.batches[0]).toEqual(batch(0, 10));
    // Not released: a new process (after a crash mid-replay) finds it again.
    const again = await SpillJournal.open({ dir });
    expect((await again.takeOldest())!.batches).toEqual(first!.batches);

    await journal.release(first!.seq);
    const rest = await drain(journal);
    expect([...first!.batches.flat(), ...rest]).toEqual(batch(0, 100));
    expect(journal.pendingOutcomes).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    await journal.close();
  });

  it('writes appends that arrive together with one fsync', async () => {
    const journal = await SpillJournal.open({ dir: freshDir() });
    await Promise.all(Array.from({ length: 200 }, (_, i) => journal.append(batch(i, 1))));
    expect(journal.pendingOutcomes).toBe(200);
    expect(journal.syncedWrites).toBeLessThan(20);
    expect((await drain(journal)).map((o) => o.requestId)).toEqual(batch(0, 200).map((o) => o.requestId));
  });

  it('keeps every outcome a SIGKILLed writer acknowledged', async () => {
    const dir = freshDir();
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./appendUntilKilled.ts', import.meta.url)), dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acknowledged = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.setEncoding('utf8').on('data', (text: string) => {
          const lines = text.trim().split('\n');
          acknowledged = Number(lines[lines.length - 1]);
          if (acknowledged >= 3_000) resolve();
        });
        child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
      });
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
    }
    const reopened = await SpillJournal.open({ dir });
    expect(reopened.pendingOutcomes).toBeGreaterThanOrEqual(acknowledged);
    const ids = new Set((await drain(reopened)).map((o) => o.requestId));
    for (let i = 0; i < acknowledged; i++) expect(ids.has(`k${i}`)).toBe(true);
  }, 60_000);

  it('cuts off a torn last frame and goes on appending after it', async () => {
    const dir = freshDir();
    const journal = await SpillJournal.open({ dir });
    await journal.append(batch(0, 3));
    await journal.close();
    const [name] = readdirSync(dir);
    const size = statSync(join(dir, name)).size;
    appendFileSync(join(dir, name), Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 5, 6])); // a header promising 200 bytes, then the crash
    const reopened = await SpillJournal.open({ dir });
    expect(statSync(join(dir, name)).size).toBe(size);
    expect(reopened.pendingOutcomes).toBe(3);
    await reopened.append(batch(3, 2));
    expect(await drain(reopened)).toEqual(batch(0, 5));
  });

  it('refuses appends past maxBytes', async () => {
    const journal = await SpillJournal.open({ dir: freshDir(), maxBytes: 3_000 });
    await journal.append(batch(0, 10));
    await expect(journal.append(batch(10, 100))).rejects.toBeInstanceOf(JournalFullError);
    expect(journal.pendingOutcomes).toBe(10);
  });
});
