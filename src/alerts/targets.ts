// Everything one evaluation judges: for each channel in the snapshot, the rate rule on the channel and on
// each of its dims series, the silent rule and the burn-rate pairs on the channel, each with its observation.
import type { ChannelHealth, HealthSnapshot } from '../stats/healthSnapshot.js';
import { seriesIdOf } from '../stats/series.js';
import { coordinationKey } from '../store/keys/coordination.js';
import { observeBurn, observeRate, observeSilent, quiet, type Observation } from './decision.js';
import type { RoutingLens } from './routingLens.js';
import { alertNames, type AlertIdentity, type RuleKind } from './notification.js';
import { ruleFor, windowSecOf, type AlertRules, type ChannelRule } from './rules.js';

export interface Target extends AlertIdentity {
  key: string;
  observation: Observation;
  /** Window the level is judged on, for the notification. */
  window: string;
  health: ChannelHealth;
}

/** The alert's part of its coordination key: `<ruleId>/<seriesId>`. */
export function alertScopeOf(ruleId: string, dims: Record<string, string> | undefined): string {
  return `${ruleId}/${dims ? seriesIdOf(dims) : ''}`;
}

function target(namespace: string, health: ChannelHealth, rule: RuleKind, ruleId: string, dims: Record<string, string> | undefined,
  observation: Observation, window: string): Target {
  const seriesId = dims ? seriesIdOf(dims) : '';
  return {
    id: `${ruleId}/${seriesId}@${health.channel}`,
    key: coordinationKey(namespace, health.channel, 'alert', alertScopeOf(ruleId, dims)),
    alertname: alertNames[rule],
    rule,
    ruleId,
    channel: health.channel,
    ...(dims ? { dims } : {}),
    observation,
    window,
    health,
  };
}

/**
 * A channel cannot complete payments the router no longer sends it: few completions are routing, not silence.
 * Silent is payments sent and not completed, so on a routed channel it also needs the router to have sent at
 * least `share` of `minSamples` (the least a window the rule judges expects) and completions below `share` of them.
 */
const decisionMarginMs = 15_000;

function routedAway(silent: Observation, channel: string, nowMs: number, rule: ChannelRule, rules: AlertRules, lens: RoutingLens | undefined): boolean {
  if (silent.fast === 0 || !silent.basis || !lens) return false;
  // The window's oldest seconds left out: a store window ends on its own bucket edges, so decisions made just
  // before a leader change at its far end may have completions it no longer counts.
  const decisions = lens.decisionsFor(channel, nowMs - windowSecOf(silent.basis.window) * 1000 + decisionMarginMs, nowMs + 1);
  if (decisions === undefined) return false;
  return decisions < rules.silent.share * rule.minSamples || silent.basis.total >= rules.silent.share * decisions;
}

/** `lens`: what the router did, when the pulse routes (routingLens.ts): a channel it drained is not `silent`. */
export function targetsOf(snapshot: HealthSnapshot, rules: AlertRules, namespace: string, lens?: RoutingLens): Target[] {
  const out: Target[] = [];
  for (const health of snapshot.channels.values()) {
    const rule = ruleFor(rules, health.channel);
    if (!rule.enabled) continue;
    out.push(target(namespace, health, 'rate', 'rate', undefined, observeRate(health.rates, rule, rules), rules.window));
    if (rules.perDimensions) {
      for (const series of health.series) {
        if (!series.dims) continue;
        out.push(target(namespace, health, 'rate', 'rate', series.dims, observeRate(series.rates, rule, rules), rules.window));
      }
    }
    if (rules.silent.enabled) {
      const silent = observeSilent(health.rates, rule, rules, windowSecOf);
      out.push(target(namespace, health, 'silent', 'silent', undefined, routedAway(silent, health.channel, snapshot.asOf, rule, rules, lens) ? quiet : silent, rules.shortWindow ?? rules.window));
    }
    for (const pair of rules.burnRate?.pairs ?? []) {
      const ruleId = `burn:${pair.long}:${pair.short}`;
      out.push(target(namespace, health, 'burn', ruleId, undefined, observeBurn(health.rates, rule, pair, rules.burnRate!.target), pair.short));
    }
  }
  return out;
}

export function muteKeyOf(namespace: string, channel: string): string {
  return coordinationKey(namespace, channel, 'mute');
}
