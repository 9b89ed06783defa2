// How bad a success rate is: graded, not one threshold (docs/background.md: below 95 % yellow, below 80 %
// orange, below 50 % red). The terminal table, the channel pages and the dashboard's badges grade alike.
import type { Rate } from '../types.js';

/** The levels a success rate is graded by; the dashboard's colours and the alerts both use them. */
export interface Thresholds {
  warn: number;
  major: number;
  critical: number;
}

export const defaultThresholds: Readonly<Thresholds> = Object.freeze({ warn: 0.95, major: 0.8, critical: 0.5 });

/** The default levels with the channels that have levels of their own (a wallet whose normal is 90 %). */
export type ThresholdsWithChannels = Thresholds & { channels?: Record<string, Thresholds> };

export type Grade = 'ok' | 'warn' | 'major' | 'critical' | 'none';

export function grade(rate: number | null, t: Thresholds): Grade {
  if (rate === null) return 'none';
  if (rate < t.critical) return 'critical';
  if (rate < t.major) return 'major';
  if (rate < t.warn) return 'warn';
  return 'ok';
}

/** A channel's state, worst first: a grade, or `few` (outcomes, but too few to trust), or `none` (no outcomes). */
export const channelStates = ['critical', 'major', 'warn', 'ok', 'few', 'none'] as const;
export type ChannelState = (typeof channelStates)[number];

/**
 * The state of a channel from its rates in `windows` (shortest first): the grade of the shortest window with
 * enough samples — the freshest number that can be trusted; a short window with few samples would flash red
 * on a handful of failures. Returns the rate that decided it too, for ordering within a state.
 */
export function channelState(rates: Record<string, Rate>, windows: readonly string[], t: Thresholds): { state: ChannelState; rate: number | null } {
  // Loops rather than map/find: the stream ranks every channel each second, 10,000 of them at the limit.
  for (const w of windows) {
    const r = rates[w];
    if (r && r.sufficient && r.rate !== null) return { state: grade(r.rate, t) as ChannelState, rate: r.rate };
  }
  for (const w of windows) {
    const r = rates[w];
    if (r && r.total > 0) return { state: 'few', rate: r.rate };
  }
  return { state: 'none', rate: null };
}
