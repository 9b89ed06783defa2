// What a dashboard row's state is judged by: with alerts configured, the alerts' own rule (their levels,
// `minSamples` and `confidenceZ`) and the channel's firing alert; without alerts, the plain grade of the rate
// (z = 0) by the service's thresholds. Read once per snapshot, so a config reload takes effect at the next.
import type { Alerts } from '../alerts/index.js';
import { rankOf } from '../alerts/decision.js';
import { ruleFor } from '../alerts/rules.js';
import { ownEntry } from '../ownEntry.js';
import type { ThresholdsWithChannels } from '../stats/severity.js';
import type { VerdictLevel, VerdictRule } from '../stats/verdict.js';

export interface VerdictSource {
  ruleOf(channel: string): VerdictRule;
  z: number;
  /** The most severe alert firing for the channel itself (not one of its dims series), or null. */
  alertLevelOf(channel: string): VerdictLevel | null;
}

export function verdictSource(thresholds: ThresholdsWithChannels, minSamples: number, alerts: Pick<Alerts, 'rules' | 'active'> | undefined): VerdictSource {
  if (!alerts) {
    return { ruleOf: (channel) => ({ thresholds: ownEntry(thresholds.channels, channel) ?? thresholds, minSamples }), z: 0, alertLevelOf: () => null };
  }
  const { rules } = alerts;
  const firing = new Map<string, VerdictLevel>();
  for (const a of alerts.active()) {
    if (a.dims) continue;
    const held = firing.get(a.channel);
    if (!held || rankOf(a.level) > rankOf(held)) firing.set(a.channel, a.level);
  }
  return { ruleOf: (channel) => ruleFor(rules, channel), z: rules.confidenceZ, alertLevelOf: (channel) => firing.get(channel) ?? null };
}
