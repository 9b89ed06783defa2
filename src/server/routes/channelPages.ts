// GET /v1/channels as pages of the health snapshot: worst first by default (what an SRE looks at), by
// name on request, with a name search, so an answer stays small however many channels there are.
import type { ChannelHealth } from '../../stats/healthSnapshot.js';

export const maxPageChannels = 1_000;

/** Lowest success rate in `window` first; channels without a rate there (no outcomes) last, by name. */
export function worstFirst(channels: ChannelHealth[], window: string): ChannelHealth[] {
  const rateOf = (h: ChannelHealth) => h.rates[window]?.rate ?? Infinity;
  return [...channels].sort((a, b) => rateOf(a) - rateOf(b) || (a.channel < b.channel ? -1 : a.channel > b.channel ? 1 : 0));
}

export interface PageQuery {
  sort: 'name' | 'worst';
  search?: string;
  offset: number;
  limit: number;
}

/** The configured windows only: the snapshot also holds the windows alerts and routing need. */
export function configuredRates(health: ChannelHealth, windows: readonly string[]) {
  return Object.fromEntries(windows.filter((w) => health.rates[w]).map((w) => [w, health.rates[w]!]));
}

export function channelPage(channels: Iterable<ChannelHealth>, query: PageQuery, rankWindow: string, windows: readonly string[]) {
  let list = [...channels];
  if (query.search) list = list.filter((h) => h.channel.includes(query.search!));
  list = query.sort === 'worst' ? worstFirst(list, rankWindow) : list.sort((a, b) => (a.channel < b.channel ? -1 : 1));
  const page = list.slice(query.offset, query.offset + query.limit);
  return {
    total: list.length,
    offset: query.offset,
    channels: page.map((h) => ({ channel: h.channel, rates: configuredRates(h, windows) })),
  };
}
