// The durable spill: outcomes that cannot reach the store are appended to a journal in a data folder and
// fsync'd BEFORE the caller is told `buffered`, so a crash or a deploy during an outage loses none of them.
// Appends that arrive while a write is at the disk go together in the next write (group commit: one fsync for
// all of them). The journal is a series of files; the oldest whole file is replayed and deleted only once the
// store took all of it, so a crash mid-replay replays that file again, which the ledger makes harmless.
// docs/architecture.md compares this with a PostgreSQL table (bench/spill).
import { mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PayPulseError } from '../../errors.js';
import type { Outcome } from '../../types.js';
import { decodeFrames, encodeFrame } from './frames.js';

export interface SpillJournalOptions {
  dir: string;
  /** A file is closed and a new one begun past this size, so one replay step stays small. Default 8 MiB. */
  fileBytes?: number;
  /** Appends past this many bytes in the journal are refused (bounded by design). Default 1 GiB. */
  maxBytes?: number;
}

interface JournalFile {
  seq: number;
  path: string;
  bytes: number;
  outcomes: number;
}

interface PendingAppend {
  frame: Buffer;
  outcomes: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export interface SpilledFile {
  /** Pass to release() once the store took every batch. */
  seq: number;
  batches: Outcome[][];
}

export class JournalFullError extends PayPulseError {
  constructor(maxBytes: number) {
    super('PP_ERR_STORE_UNAVAILABLE', `store unavailable and the spill journal is full (${maxBytes} bytes)`);
    this.name = 'JournalFullError';
  }
}

const fileName = (seq: number) => `spill-${String(seq).padStart(12, '0')}.log`;
const filePattern = /^spill-(\d{12})\.log$/;

export class SpillJournal {
  /** Closed files, oldest first. */
  private readonly sealed: JournalFile[] = [];
  private active: (JournalFile & { handle: FileHandle }) | undefined;
  private nextSeq: number;
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  /** Every file operation runs on this chain, one at a time. */
  private io: Promise<unknown> = Promise.resolve();
  private bytes = 0;
  private outcomes = 0;
  /** Writes (each one fsync) so far: fewer than appends when appends arrive together. */
  syncedWrites = 0;
  private readonly fileBytes: number;
  private readonly maxBytes: number;

  private constructor(
    readonly dir: string,
    options: SpillJournalOptions,
    recovered: JournalFile[],
  ) {
    this.fileBytes = options.fileBytes ?? 8 * 1024 * 1024;
    this.maxBytes = options.maxBytes ?? 1024 * 1024 * 1024;
    this.sealed.push(...recovered);
    for (const f of recovered) {
      this.bytes += f.bytes;
      this.outcomes += f.outcomes;
    }
    this.nextSeq = (recovered.at(-1)?.seq ?? 0) + 1;
  }

  /** Opens the journal in `dir`, finding what an earlier process left (a torn last frame is cut off). */
  static async open(options: SpillJournalOptions): Promise<SpillJournal> {
    await mkdir(options.dir, { recursive: true });
    const names = (await readdir(options.dir)).filter((n) => filePattern.test(n)).sort();
    const recovered: JournalFile[] = [];
    for (const name of names) {
      const path = join(options.dir, name);
      const data = await readFile(path);
      const { batches, validBytes } = decodeFrames(data);
      if (validBytes < data.length) {
        const handle = await open(path, 'r+');
        await handle.truncate(validBytes);
        await handle.sync();
        await handle.close();
      }
      const outcomes = batches.reduce((n, b) => n + b.length, 0);
      if (outcomes === 0) await rm(path, { force: true });
      else recovered.push({ seq: Number(filePattern.exec(name)![1]), path, bytes: validBytes, outcomes });
    }
    return new SpillJournal(options.dir, options, recovered);
  }

  /** Outcomes in the journal (appended, not yet released). */
  get pendingOutcomes(): number {
    return this.outcomes;
  }

  get pendingBytes(): number {
    return this.bytes;
  }

  /** Resolves once the batch is on disk (fsync'd); rejects with JournalFullError past maxBytes. */
  append(outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return Promise.resolve();
    const frame = encodeFrame(outcomes);
    const queuedBytes = this.queue.reduce((n, p) => n + p.frame.length, 0);
    if (this.bytes + queuedBytes + frame.length > this.maxBytes) return Promise.reject(new JournalFullError(this.maxBytes));
    return new Promise((resolve, reject) => {
      this.queue.push({ frame, outcomes: outcomes.length, resolve, reject });
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      this.run(() => this.flushQueue());
    });
  }

  /** The oldest spilled file's batches, in append order; the file being written is closed first. */
  takeOldest(): Promise<SpilledFile | undefined> {
    return this.run(async () => {
      if (this.sealed.length === 0) await this.sealActive();
      const oldest = this.sealed[0];
      if (!oldest) return undefined;
      return { seq: oldest.seq, batches: decodeFrames(await readFile(oldest.path)).batches };
    });
  }

  /** Deletes a replayed file: its outcomes are in the store. */
  release(seq: number): Promise<void> {
    return this.run(async () => {
      const index = this.sealed.findIndex((f) => f.seq === seq);
      if (index < 0) return;
      const [file] = this.sealed.splice(index, 1);
      await rm(file.path, { force: true });
      await this.syncDir();
      this.bytes -= file.bytes;
      this.outcomes -= file.outcomes;
    });
  }

  async close(): Promise<void> {
    await this.run(() => this.sealActive());
  }

  private run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.io.then(work);
    this.io = next.catch(() => undefined);
    return next;
  }

  private async flushQueue(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    let file: (JournalFile & { handle: FileHandle }) | undefined;
    try {
      file = await this.activeFile();
      const data = batch.length === 1 ? batch[0].frame : Buffer.concat(batch.map((p) => p.frame));
      let written = 0;
      while (written < data.length) written += (await file.handle.write(data, written)).bytesWritten;
      await file.handle.datasync();
      this.syncedWrites++;
      const outcomes = batch.reduce((n, p) => n + p.outcomes, 0);
      file.bytes += data.length;
      file.outcomes += outcomes;
      this.bytes += data.length;
      this.outcomes += outcomes;
      for (const p of batch) p.resolve();
      if (file.bytes >= this.fileBytes) await this.sealActive();
    } catch (err) {
      for (const p of batch) p.reject(err);
      if (file) await this.abandonActive(file);
    }
  }

  /** After a failed write: cut the file back to its last whole frame and go on in a new file. */
  private async abandonActive(file: JournalFile & { handle: FileHandle }): Promise<void> {
    await file.handle.truncate(file.bytes).catch(() => undefined);
    await this.sealActive().catch(() => undefined);
  }

  private async activeFile(): Promise<JournalFile & { handle: FileHandle }> {
    if (this.active) return this.active;
    const seq = this.nextSeq++;
    const path = join(this.dir, fileName(seq));
    const handle = await open(path, 'a');
    // A new file's name must survive a crash too, not only its bytes.
    await this.syncDir();
    this.active = { seq, path, bytes: 0, outcomes: 0, handle };
    return this.active;
  }

  private async sealActive(): Promise<void> {
    const file = this.active;
    if (!file) return;
    this.active = undefined;
    await file.handle.close();
    if (file.outcomes > 0) this.sealed.push({ seq: file.seq, path: file.path, bytes: file.bytes, outcomes: file.outcomes });
    else await rm(file.path, { force: true });
  }

  private async syncDir(): Promise<void> {
    const handle = await open(this.dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
