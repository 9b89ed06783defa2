// How bad a success rate is: graded, not one threshold (docs/background.md: below 95 % yellow, below 80 %
// orange, below 50 % red). The terminal table, the channel pages and the dashboard's badges grade alike.
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
