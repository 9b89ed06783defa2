// The health snapshot's read on Redis (strategy buckets) carries each window's settled counts from one
// second to the next (src/store/redis/windowsCarry.ts). Read second by second while traffic keeps coming —
// on time, a few seconds late, minutes late, ahead within the skew tolerance, pendings resolved and timed
// out, failures upgraded, duplicates, and from a writer whose clock runs 6 s behind the reader's — it must
// answer at every step what a whole per-series read answers. Channels nobody writes to for a while are read
// from what the reader holds (outcomes dated ahead of its clock too), and a request whose outcomes name
// different series moves its count from one series to another.
import { describe, expect, it } from 'vitest';
import { hashId } from '../../../src/stats/hash.js';
import { resolveSettings } from '../../../src/stats/settings.js';
import { StatusCode, type ChannelSeries, type StoredOutcome } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';
import { useRedisServers } from '../../support/statsEngines.js';

const windowsSec = [60, 300, 900, 3600];
const series = ['', 'method=card'];
const channels = ['a', 'b', 'c'];
const start = Date.UTC(2026, 0, 1, 12, 0, 41, 300);

let seed = 11;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;

/** How far before `now` an outcome is dated, ms: mostly on time, some late by seconds or minutes, some ahead. */
function ageMs(): number {
  const r = random();
  if (r < 0.6) return Math.floor(random() * 1_000);
  if (r < 0.75) return 1_000 + Math.floor(random() * 4_000); // late, but within the seconds read again
  if (r < 0.85) return 5_000 + Math.floor(random() * 12_000); // late enough to change the rev, around the fresh seconds' edge
  if (r < 0.93) return 5_000 + Math.floor(random() * 20 * 60_000); // minutes late
  return -Math.floor(random() * 30_000); // ahead, within the skew tolerance
}

const servers = useRedisServers();

describe.each([
  { name: 'redis', url: () => servers.redis!.url },
  { name: 'cluster', url: () => servers.cluster!.urls.join(',') },
])('carried window reads: $name', ({ url }) => {
  it('answer at every second what a whole read answers', async () => {
    const connection = await RedisConnection.connect({ url: url(), commandTimeoutMs: 5_000, connectTimeoutMs: 10_000 });
    const settings = resolveSettings({ namespace: `carry${process.pid}`, strategy: 'buckets', pendingTimeoutMs: 20_000, windows: ['1m', '5m', '15m', '1h'] });
    const store = new RedisStatsStore(connection, settings);
    const reads: ChannelSeries[] = channels.map((channel) => ({ channel, series }));
    let now = start;
    let id = 0;
    const open: Array<{ channel: string; requestId: string; series: string[] }> = [];
    const together: Array<{ channel: string; outcomes: StoredOutcome[] }> = [];
    try {
      for (let step = 0; step < 150; step++) {
        // Mostly a second apart, as the snapshot reads; sometimes twice in one second, sometimes a gap.
        now += pick([1_000, 1_000, 1_000, 1_000, 2_000, 0, 3_000, 7_000]) + Math.floor(random() * 50);
        for (const channel of channels) {
          const writerNow = channel === 'c' ? now - 6_000 : now;
          const outcomes: StoredOutcome[] = [];
          for (let n = Math.floor(random() * 6); n > 0; n--) {
            const status = pick([StatusCode.Success, StatusCode.Success, StatusCode.Failure, StatusCode.Pending]);
            const requestId = `r${++id}`;
            const s = random() < 0.5 ? [''] : series;
            outcomes.push({ requestId, status, at: writerNow - ageMs(), code: status === StatusCode.Failure ? 'E1' : '', series: s, hash: hashId(requestId) });
            if (status === StatusCode.Pending) open.push({ channel, requestId, series: s });
            if (status === StatusCode.Failure && random() < 0.3) outcomes.push({ ...outcomes.at(-1)!, status: StatusCode.Success, code: '' }); // upgraded
            if (random() < 0.1) outcomes.push({ ...outcomes.at(-1)! }); // duplicate
          }
          // Some pendings end (others time out after 20 s).
          const ending = open.findIndex((p) => p.channel === channel);
          if (ending >= 0 && random() < 0.4) {
            const p = open.splice(ending, 1)[0]!;
            outcomes.push({ requestId: p.requestId, status: StatusCode.Success, at: writerNow - ageMs(), code: '', series: p.series, hash: hashId(p.requestId) });
          }
          // Channels a writer on time records together, in one call (recordMany); the other alone.
          if (outcomes.length > 0 && channel === 'c') await store.recordBatch(channel, outcomes, writerNow, 5_000);
          else if (outcomes.length > 0) together.push({ channel, outcomes });
        }
        await store.recordBatches(together.splice(0), now, 5_000);
        const carried = await store.readWindowsMany(reads, windowsSec, now);
        const whole = await Promise.all(reads.map((r) => Promise.all(r.series.map((s) => store.readWindows(r.channel, s, windowsSec, now)))));
        expect({ step, counts: carried }).toEqual({ step, counts: whole });
      }
      // Not vacuous: the hour holds counts of every kind.
      const hour = (await store.readWindowsMany(reads, windowsSec, now))[0]![0]![3]!;
      expect(hour.success).toBeGreaterThan(50);
      expect(hour.failure).toBeGreaterThan(10);
      expect(hour.started).toBeGreaterThan(10);
    } finally {
      await connection.close();
    }
  }, 120_000);

  it('answer what a whole read answers while nobody writes, and when a correction names other series', async () => {
    const connection = await RedisConnection.connect({ url: url(), commandTimeoutMs: 5_000, connectTimeoutMs: 10_000 });
    const settings = resolveSettings({ namespace: `quiet${process.pid}`, strategy: 'buckets', pendingTimeoutMs: 20_000, windows: ['1m', '5m', '15m', '1h'] });
    const store = new RedisStatsStore(connection, settings);
    // 'd' takes only the requests below: its 'method=card' series holds a failure, then a success too.
    const reads: ChannelSeries[] = [...channels, 'd'].map((channel) => ({ channel, series }));
    const outcome = (requestId: string, status: StatusCode, at: number, s: string[]): StoredOutcome => ({ requestId, status, at, code: '', series: s, hash: hashId(requestId) });
    let now = start;
    let id = 0;
    let upgraded = false;
    try {
      for (let step = 0; now < start + 420_000; step++) {
        now += pick([1_000, 1_000, 1_000, 2_000, 0, 3_000]) + Math.floor(random() * 50);
        const batches: Array<{ channel: string; outcomes: StoredOutcome[] }> = [];
        // Bursts a minute apart, each followed by silence: the windows' edges pass the burst second by second.
        if (step % 60 < 3) {
          for (const channel of channels) {
            const outcomes = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
              const ahead = random() < 0.3 ? Math.floor(random() * 12_000) : -Math.floor(random() * 3_000);
              return outcome(`q${++id}`, pick([StatusCode.Success, StatusCode.Failure, StatusCode.Pending]), now + ahead, pick([[''], series]));
            });
            batches.push({ channel, outcomes });
          }
        }
        // A failure of '' upgraded by a success naming 'method=card' too, four minutes later: the upgrade takes
        // the failure back from '' alone, where it was counted, and counts the success in both.
        if (step === 2) batches.push({ channel: 'd', outcomes: [outcome('card', StatusCode.Failure, now, series), outcome('plain', StatusCode.Failure, now + 5_000, [''])] });
        if (!upgraded && now > start + 250_000) {
          batches.push({ channel: 'd', outcomes: [outcome('plain', StatusCode.Success, now, series)] });
          upgraded = true;
        }
        if (batches.length > 0) await store.recordBatches(batches, now, 5_000);
        const carried = await store.readWindowsMany(reads, windowsSec, now);
        const whole = await Promise.all(reads.map((r) => Promise.all(r.series.map((s) => store.readWindows(r.channel, s, windowsSec, now)))));
        expect({ step, counts: carried }).toEqual({ step, counts: whole });
      }
      const hour = (await store.readWindowsMany(reads, windowsSec, now))[0]![0]![3]!;
      expect(hour.success + hour.failure).toBeGreaterThan(5);
      expect((await store.readWindows('d', 'method=card', windowsSec, now))[3]).toMatchObject({ success: 1, failure: 1 });
      expect((await store.readWindows('d', '', windowsSec, now))[3]).toMatchObject({ success: 1, failure: 1 });
    } finally {
      await connection.close();
    }
  }, 120_000);
});
