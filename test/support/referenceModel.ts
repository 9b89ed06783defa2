// A plain reference model of the counting rules, written from docs/architecture.md without looking
// at the engines' data structures: it keeps every request's history and counts by scanning it.
// The property test compares every engine with it.
import type { Outcome } from '../../src/types.js';

type Terminal = 'success' | 'failure';

interface Life {
  id: string;
  status: 'pending' | Terminal;
  /** Pending: when it was sent; terminal: completion time (the timeout's deadline for a timeout). */
  at: number;
  code: string;
  series: string[];
  /** Sent-marks: [at, series] of the pending outcome, at most one per life. */
  sent?: { at: number; series: string[] };
  /** A pending life the timeout sweep dropped because it was past the horizon. */
  dropped?: boolean;
}

export interface ModelSettings {
  horizonMs: number;
  skewToleranceMs: number;
  pendingTimeoutMs: number;
  dimensions: string[][];
}

export type ModelResult = 'accepted' | 'duplicate' | 'corrected' | 'stale';

export class ReferenceModel {
  /** Every life of every request, per channel; the last one of an id is its current life. */
  private readonly lives = new Map<string, Life[]>();

  constructor(private readonly s: ModelSettings) {}

  private seriesOf(dims?: Record<string, string>): string[] {
    const out = [''];
    for (const set of this.s.dimensions) {
      const names = [...set].sort();
      if (dims && names.every((n) => dims[n] !== undefined)) out.push(names.map((n) => `${n}=${dims[n]}`).join(','));
    }
    return out;
  }

  private all(channel: string): Life[] {
    let l = this.lives.get(channel);
    if (!l) this.lives.set(channel, (l = []));
    return l;
  }

  private current(channel: string, id: string, now: number): Life | undefined {
    const lives = this.all(channel);
    for (let i = lives.length - 1; i >= 0; i--) {
      if (lives[i].id !== id) continue;
      const life = lives[i];
      return life.at >= now - this.s.horizonMs && !life.dropped ? life : undefined;
    }
    return undefined;
  }

  /** A pending request past its deadline becomes a failure `timeout` at the deadline. */
  sweep(channel: string, now: number): void {
    const latest = new Map<string, Life>();
    for (const life of this.all(channel)) latest.set(life.id, life);
    for (const life of latest.values()) {
      if (life.status !== 'pending' || life.dropped || life.at + this.s.pendingTimeoutMs > now) continue;
      if (life.at < now - this.s.horizonMs) life.dropped = true;
      else Object.assign(life, { status: 'failure', at: life.at + this.s.pendingTimeoutMs, code: 'timeout' });
    }
  }

  recordMany(outcomes: Outcome[], now: number): ModelResult[] {
    const fresh = (o: Outcome) => o.at >= now - this.s.horizonMs && o.at <= now + this.s.skewToleranceMs;
    for (const channel of new Set(outcomes.filter(fresh).map((o) => o.channel))) this.sweep(channel, now);
    return outcomes.map((o) => (fresh(o) ? this.apply(o, now) : 'stale'));
  }

  private apply(o: Outcome, now: number): ModelResult {
    const series = this.seriesOf(o.dims);
    const life = this.current(o.channel, o.requestId, now);
    if (!life) {
      this.all(o.channel).push({
        id: o.requestId,
        status: o.status,
        at: o.at,
        code: o.status === 'failure' ? (o.code ?? '') : '',
        series,
        ...(o.status === 'pending' ? { sent: { at: o.at, series } } : {}),
      });
      return 'accepted';
    }
    if (o.status === 'pending') {
      if (life.sent) return 'duplicate';
      life.sent = { at: o.at, series };
      return 'accepted';
    }
    if (life.status === 'pending') {
      Object.assign(life, { status: o.status, at: o.at, code: o.status === 'failure' ? (o.code ?? '') : '', series });
      return 'accepted';
    }
    if (life.status === 'failure' && o.status === 'success') {
      // The old failure is gone from every count; the request now counts once, as this success.
      Object.assign(life, { status: 'success', at: o.at, code: '', series });
      return 'corrected';
    }
    return 'duplicate';
  }

  windowCounts(channel: string, series: string, windowSec: number, now: number) {
    this.sweep(channel, now);
    const toSec = Math.floor(now / 1000);
    const inWindow = (at: number) => Math.floor(at / 1000) >= toSec - windowSec + 1 && Math.floor(at / 1000) <= toSec;
    const c = { success: 0, failure: 0, started: 0, pending: 0 };
    for (const life of this.all(channel)) {
      if (life.sent && life.sent.series.includes(series) && inWindow(life.sent.at)) c.started++;
      if (!life.series.includes(series) || !inWindow(life.at)) continue;
      if (life.status === 'success') c.success++;
      else if (life.status === 'failure') c.failure++;
      else if (!life.dropped) c.pending++;
    }
    return c;
  }

  lastN(channel: string, series: string, n: number, now: number) {
    this.sweep(channel, now);
    const newest = this.all(channel)
      .filter((l) => l.status !== 'pending' && l.series.includes(series) && l.at <= now && l.at >= now - this.s.horizonMs)
      .map((l) => ({ score: l.at * 2 + (l.status === 'success' ? 1 : 0), id: l.id }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, n);
    const success = newest.filter((x) => x.score % 2 === 1).length;
    return { success, failure: newest.length - success };
  }

  failures(channel: string, fromMs: number, now: number, limit: number) {
    this.sweep(channel, now);
    return this.all(channel)
      .filter((l) => l.status === 'failure' && l.at >= fromMs && l.at <= now)
      .map((l) => ({ member: `${l.id}\t${l.code}`, requestId: l.id, at: l.at, code: l.code }))
      .sort((a, b) => b.at - a.at || (a.member < b.member ? 1 : a.member > b.member ? -1 : 0))
      .slice(0, limit)
      .map(({ requestId, at, code }) => (code ? { requestId, at, code } : { requestId, at }));
  }

  minutes(channel: string, series: string, fromMs: number, toMs: number, now: number) {
    this.sweep(channel, now);
    const out = [];
    for (let m = Math.ceil(fromMs / 60_000); m <= Math.floor(toMs / 60_000); m++) {
      const inMinute = (at: number) => Math.floor(at / 60_000) === m;
      const c = { minute: m * 60_000, success: 0, failure: 0, started: 0 };
      for (const life of this.all(channel)) {
        if (life.sent && life.sent.series.includes(series) && inMinute(life.sent.at)) c.started++;
        if (!life.series.includes(series) || !inMinute(life.at)) continue;
        if (life.status === 'success') c.success++;
        else if (life.status === 'failure') c.failure++;
      }
      out.push(c);
    }
    return out;
  }
}
