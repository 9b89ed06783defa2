// The pieces every group of service metrics shares: a registry of its own (several apps in one test process
// must not share counters), counters that mirror a number kept elsewhere, and bounded channel labels.
import client from 'prom-client';

/** Channel ids come from callers; past this many distinct labels the rest share `_other` (bounded series). */
const maxChannelLabels = 1_000;

export function createRegistry(): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  // prom-client names these gauges *_total, which `promtool check metrics` rejects (a _total suffix promises a
  // counter); process_* and nodejs_* still cover handles and resources through the remaining defaults.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  return registry;
}

/** A counter mirroring a monotonic number kept elsewhere (pulse.health(), the snapshot job). */
export function mirroredCounter(registry: client.Registry, name: string, help: string, read: () => number | undefined) {
  let seen = 0;
  return new client.Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      if (now === undefined) return;
      // A smaller value means the source restarted (a new pulse); counting from it again keeps the counter monotonic.
      const delta = now >= seen ? now - seen : now;
      seen = now;
      if (delta > 0) this.inc(delta);
    },
  });
}

export type ChannelLabel = (channel: string) => string;

/** The label for a channel: itself for the first 1,000 distinct channels, `_other` after. */
export function boundedChannelLabels(): ChannelLabel {
  const channelLabels = new Set<string>();
  return (channel) => {
    if (channelLabels.has(channel)) return channel;
    if (channelLabels.size >= maxChannelLabels) return '_other';
    channelLabels.add(channel);
    return channel;
  };
}

/**
 * Failure codes kept as labels per channel (K): the first ones seen; a channel's later new codes count as
 * `other`. The first seen, not the most frequent: a counter's label cannot move to `other` once it has counts
 * without breaking its rate, and a channel's decline codes are a short list, seen within its first failures.
 */
export const maxCodeLabelsPerChannel = 10;

/**
 * The label codes past a channel's K share. Codes are free text, so no printable label is free of a real one (a
 * code `other` is counted with them); `other` is the name an SRE guesses, `_other` is kept for channels, whose
 * names cannot hold `_`.
 */
export const otherCodeLabel = 'other';

/** The label for a channel's failure code: bounded per channel, `unknown` for a failure without one. */
export function boundedCodeLabels(): (channelLabel: string, code: string | undefined) => string {
  const codes = new Map<string, Set<string>>();
  return (channelLabel, code) => {
    const label = code ?? 'unknown';
    let seen = codes.get(channelLabel);
    if (!seen) codes.set(channelLabel, (seen = new Set()));
    if (seen.has(label)) return label;
    if (seen.size >= maxCodeLabelsPerChannel) return otherCodeLabel;
    seen.add(label);
    return label;
  };
}
