// Keys of the coordination port. State that belongs to a channel lives in the channel's slot (`{<channel>}`),
// beside its statistics, so one Cluster node answers for everything about a channel; `scope` names the series
// within it ('' for the channel itself, or a dims series id such as `currency=BRL,method=card`).
import { slotPrefix } from './index.js';

export type CoordinationKind = 'alert' | 'breaker' | 'probes' | 'mute';

export function coordinationKey(namespace: string, channel: string, kind: CoordinationKind, scope = ''): string {
  return `${slotPrefix(namespace, channel)}co:${kind}:${scope}`;
}

/** The routing experiment's fleet-wide arm counts: one key for the namespace, in a slot of its own. */
export function experimentKey(namespace: string): string {
  return `${slotPrefix(namespace, 'routing')}co:experiment`;
}
