// What a notification says, the same for every receiver (webhook JSON, Slack text, Alertmanager labels and
// annotations, the log): enough for the on-call engineer to act without opening anything else.
import type { FailedRequest } from '../types.js';
import type { Level } from './rules.js';
import type { RateBasis, Transition } from './state.js';
import { routingText, type RoutingContext } from './routingLens.js';
import { percent } from './percent.js';

export type RuleKind = 'rate' | 'silent' | 'burn';

export const alertNames: Record<RuleKind, string> = {
  rate: 'PayPulseSuccessRateLow',
  silent: 'PayPulseChannelSilent',
  burn: 'PayPulseErrorBudgetBurn',
};

export interface Concentration {
  dims: Record<string, string>;
  rate: number | null;
  total: number;
  failure: number;
  /** How far the series' rate fell below its reference (its baseline, or the channel's own rate). */
  drop: number;
}

export interface Evidence {
  /** Newest failed requests in the window, newest first (at most 10). */
  failedRequests: FailedRequest[];
  /** Failure codes among the newest failures, most frequent first. */
  topCodes: Array<{ code: string; count: number }>;
  /** Dimension values whose rate fell most: where the failures concentrate. */
  concentration: Concentration[];
}

export const emptyEvidence: Evidence = { failedRequests: [], topCodes: [], concentration: [] };

export interface AlertIdentity {
  /** Stable over the alert's life: `<ruleId>/<seriesId>@<channel>`. */
  id: string;
  alertname: string;
  rule: RuleKind;
  /** `rate`, `silent` or `burn:1h:5m`. */
  ruleId: string;
  channel: string;
  dims?: Record<string, string>;
}

export interface AlertNotification extends AlertIdentity {
  transition: Transition;
  /** Level after the transition; for `resolved`, the level that ended. */
  level: Level;
  previousLevel: Level | null;
  rate: RateBasis | null;
  window: string;
  /** When the alert started firing, epoch ms. */
  since: number;
  /** When this transition happened, epoch ms. */
  at: number;
  dashboardUrl: string;
  evidence: Evidence;
  /** What routing did for the channel (share now and before, breaker, override), when the pulse routes. */
  routing?: RoutingContext;
  /** Shown, not sent: the channel is muted until `mutedUntil`. */
  muted: boolean;
  mutedUntil?: number;
}

export interface ActiveAlert extends AlertIdentity {
  level: Level;
  since: number;
  levelSince: number;
  rate: RateBasis | null;
  window: string;
  evidence: Evidence;
  muted: boolean;
  mutedUntil?: number;
  dashboardUrl: string;
  routing?: RoutingContext;
}

export { percent } from './percent.js';

/** `39.0 %–48.0 % (z 4)`: the interval with the confidence it was computed at, 95 % unless said. */
export function intervalText(rate: RateBasis): string {
  const z = rate.z === undefined || Math.abs(rate.z - 1.96) < 0.01 ? '' : ` (z ${rate.z})`;
  return `${percent(rate.low)}–${percent(rate.high)}${z}`;
}

function dimsText(dims: Record<string, string>): string {
  return Object.entries(dims).map(([k, v]) => `${k}=${v}`).join(' ');
}

/** One line for logs and chat: what, where, how bad, and the first thing to look at. */
export function summaryOf(n: Pick<AlertNotification, 'transition' | 'level' | 'channel' | 'dims' | 'rule' | 'rate' | 'window' | 'evidence' | 'routing'>): string {
  const where = n.dims ? `${n.channel} ${dimsText(n.dims)}` : n.channel;
  const what = n.rule === 'silent' ? 'completes almost no payments' : n.rule === 'burn' ? 'burns its error budget' : 'success rate low';
  const rate = n.rate ? ` — ${percent(n.rate.rate)} (${intervalText(n.rate)}) of ${n.rate.total} in ${n.rate.window}` : '';
  // Ranked by how far each series fell from its own baseline, which is not the lowest rate: said as such.
  const top = n.evidence.concentration[0];
  const focus = top ? `; fell most: ${dimsText(top.dims)} to ${percent(top.rate)}` : '';
  const routed = n.routing ? `; ${routingText(n.routing)}` : '';
  return `[${n.transition} ${n.level}] ${where}: ${what}${rate}${focus}${routed}`;
}

/** One series of the concentration, for receivers that take text: `method=card 30.1 %`. */
export function concentrationText(c: Concentration): string {
  return `${dimsText(c.dims)} ${percent(c.rate)}`;
}

/** The dashboard page of a channel. */
export function dashboardLink(base: string, channel: string): string {
  const url = new URL(base);
  url.searchParams.set('channel', channel);
  return url.toString();
}
