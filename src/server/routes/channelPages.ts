// GET /v1/channels and the stream's `rates` as pages of the health snapshot, so an answer stays small however
// many channels there are. Up to `pageChannels` channels an answer holds them all, as it always did; past it
// the worst come first (what an SRE looks at), a page at a time, with a summary of every channel by state so
// a client knows what it does not see. Ranking is done once per snapshot and shared by every reader.
import type { ChannelHealth, HealthSnapshot } from '../../stats/healthSnapshot.js';
import { channelStates, type ChannelState } from '../../stats/severity.js';
import { channelVerdict, type ChannelVerdict } from '../../stats/verdict.js';
import type { VerdictSource } from '../rowVerdicts.js';
import { parseWindow } from '../../stats/windows.js';
import type { Rate } from '../../types.js';

export const maxPageChannels = 1_000;

export interface PageQuery {
  sort?: 'name' | 'worst';
  search?: string;
  offset: number;
  limit?: number;
}

export interface ChannelPaging {
  /** Past this many channels an answer is a page: by default the worst this many, with a summary. */
  pageChannels: number;
  /** Past `pageChannels` the stream's `rates` holds the worst this many, capped at `pageChannels`. */
  streamPageChannels: number;
  /** The configured windows: the snapshot also holds the windows alerts and routing need. */
  windows: readonly string[];
  /** What a row's state is judged by (rowVerdicts.ts); read at each snapshot: alerts and a reload change it. */
  verdicts: () => VerdictSource;
}

/** How many channels are in each state, and how many there are in all. */
export type StateSummary = Record<ChannelState, number> & { channels: number };

export interface ChannelEntry {
  channel: string;
  rates: Record<string, Rate>;
  /** The channel's part of the store could not be read: its last rates (ChannelHealth.stale). */
  stale?: true;
  /** The row's state, as the alerts judge it (stats/verdict.ts). */
  verdict: RowVerdict;
}

/** A channel's verdict as the page shows it: the state, and the window or the alert that decided it. */
export type RowVerdict = Omit<ChannelVerdict, 'rate'>;

interface Ranked {
  worst: ChannelHealth[];
  byName?: ChannelHealth[];
  summary: StateSummary;
}

/** A channel with what it is ranked by. */
interface Keyed {
  health: ChannelHealth;
  verdict: RowVerdict;
  order: number;
  rate: number;
}

/** The configured windows only: the snapshot also holds the windows alerts and routing need. */
export function configuredRates(health: ChannelHealth, windows: readonly string[]): Record<string, Rate> {
  return Object.fromEntries(windows.filter((w) => health.rates[w]).map((w) => [w, health.rates[w]!]));
}

const byChannelName = (a: ChannelHealth, b: ChannelHealth) => (a.channel < b.channel ? -1 : a.channel > b.channel ? 1 : 0);

/**
 * Worst first: by state (the dashboard's badge: the grade of the shortest window with enough samples),
 * then by the rate that decided it, lowest first, then by name, so equal channels keep one order.
 */
const worseFirst = (a: Keyed, b: Keyed) => a.order - b.order || a.rate - b.rate || byChannelName(a.health, b.health);

interface KeyedChannels {
  keyed: Keyed[];
  verdicts: Map<string, RowVerdict>;
  summary: StateSummary;
}

/** Every channel with its rank keys, and the summary by state. */
function keyChannels(snapshot: HealthSnapshot, windows: readonly string[], source: VerdictSource): KeyedChannels {
  const summary = Object.fromEntries(channelStates.map((s) => [s, 0])) as StateSummary;
  summary.channels = snapshot.channels.size;
  const keyed: Keyed[] = [];
  const verdicts = new Map<string, RowVerdict>();
  for (const health of snapshot.channels.values()) {
    // A channel with its own levels is ranked by them, as its alerts and its row judge it.
    const { rate, ...verdict } = channelVerdict(health.rates, windows, source.ruleOf(health.channel), source.z, source.alertLevelOf(health.channel));
    summary[verdict.state] += 1;
    verdicts.set(health.channel, verdict);
    keyed.push({ health, verdict, order: channelStates.indexOf(verdict.state), rate: rate ?? Infinity });
  }
  return { keyed, verdicts, summary };
}

/**
 * The worst `n` in `worseFirst` order without sorting every channel: one pass keeping the worst `n` seen.
 * The stream needs 25 of 10,000 each second, and sorting them all was one long task
 * (docs/decisions/067-long-tasks-yield.md).
 */
function worstFew(keyed: Keyed[], n: number): ChannelHealth[] {
  if (n <= 0) return [];
  const kept: Keyed[] = [];
  for (const k of keyed) {
    if (kept.length === n && worseFirst(k, kept[n - 1]!) >= 0) continue;
    if (kept.length === n) kept.pop();
    let at = kept.length;
    while (at > 0 && worseFirst(k, kept[at - 1]!) < 0) at--;
    kept.splice(at, 0, k);
  }
  return kept.map((k) => k.health);
}

export function createChannelPages(paging: ChannelPaging) {
  const { pageChannels } = paging;
  const streamPageChannels = Math.min(paging.streamPageChannels, pageChannels);
  const windows = [...paging.windows].sort((a, b) => parseWindow(a) - parseWindow(b));
  const ranks = new WeakMap<HealthSnapshot, Ranked>();

  const keys = new WeakMap<HealthSnapshot, KeyedChannels>();
  const keyedOf = (snapshot: HealthSnapshot): KeyedChannels => {
    let keyed = keys.get(snapshot);
    if (!keyed) keys.set(snapshot, (keyed = keyChannels(snapshot, windows, paging.verdicts())));
    return keyed;
  };
  const entry = (snapshot: HealthSnapshot, h: ChannelHealth): ChannelEntry => ({
    channel: h.channel,
    rates: configuredRates(h, paging.windows),
    ...(h.stale ? { stale: true } : {}),
    verdict: keyedOf(snapshot).verdicts.get(h.channel)!,
  });

  function ranked(snapshot: HealthSnapshot): Ranked {
    const cached = ranks.get(snapshot);
    if (cached) return cached;
    const { keyed, summary } = keyedOf(snapshot);
    const result: Ranked = { worst: [...keyed].sort(worseFirst).map((k) => k.health), summary };
    ranks.set(snapshot, result);
    return result;
  }

  /** The first `n` of `ranked(snapshot).worst`, from the full sort if a reader already made it. */
  function worstOf(snapshot: HealthSnapshot, n: number): ChannelHealth[] {
    const cached = ranks.get(snapshot);
    return cached ? cached.worst.slice(0, n) : worstFew(keyedOf(snapshot).keyed, n);
  }

  function sorted(snapshot: HealthSnapshot, sort: 'name' | 'worst'): ChannelHealth[] {
    const rank = ranked(snapshot);
    if (sort === 'worst') return rank.worst;
    rank.byName ??= [...rank.worst].sort(byChannelName);
    return rank.byName;
  }

  return {
    /** A page of GET /v1/channels. An answer that leaves channels out says how many are in each state. */
    page(snapshot: HealthSnapshot, query: PageQuery) {
      const paged = snapshot.channels.size > pageChannels;
      let list = sorted(snapshot, query.sort ?? (paged ? 'worst' : 'name'));
      const search = query.search?.toLowerCase();
      if (search) list = list.filter((h) => h.channel.toLowerCase().includes(search));
      const limit = query.limit ?? (paged ? pageChannels : maxPageChannels);
      const shown = list.slice(query.offset, query.offset + limit);
      const answer = { total: list.length, offset: query.offset, channels: shown.map((h) => entry(snapshot, h)) };
      if (shown.length === snapshot.channels.size) return answer;
      const next = query.offset + shown.length;
      return { ...answer, ...(next < list.length ? { nextOffset: next } : {}), summary: ranked(snapshot).summary };
    },

    /**
     * The stream's `rates`: every channel, worst first; past `pageChannels` the worst `streamPageChannels`
     * only, with the summary. Its page is smaller than the REST one because it is written to every client
     * every second, where a REST page is asked for.
     */
    ratesEvent(snapshot: HealthSnapshot) {
      const count = snapshot.channels.size;
      const shown = count > pageChannels ? worstOf(snapshot, streamPageChannels) : ranked(snapshot).worst;
      const rates: Rate[] = shown.flatMap((health) => Object.values(configuredRates(health, paging.windows)));
      const { verdicts: all, summary } = keyedOf(snapshot);
      // Each shown row's state as the alerts judge it: the page paints these, it does not grade on its own.
      const verdicts = Object.fromEntries(shown.map((h) => [h.channel, all.get(h.channel)!]));
      const truncated = shown.length < count;
      return { asOf: snapshot.asOf, rates, verdicts, channels: count, truncated, ...(truncated ? { summary } : {}) };
    },
  };
}

export type ChannelPages = ReturnType<typeof createChannelPages>;
