// One alert target's step in one evaluation: the compare-and-set of its state, and, for the instance whose
// write won, the notification of its transition with the evidence gathered then.
import type { CoordinationStore, SharedState } from '../store/ports/coordination.js';
import type { PulseLogger } from '../types.js';
import { levelOf } from './decision.js';
import { gatherEvidence, type FailuresReader } from './evidence.js';
import { dashboardLink, emptyEvidence, type ActiveAlert, type AlertIdentity, type AlertNotification, type Evidence } from './notification.js';
import type { AlertRules } from './rules.js';
import { parseState, stepAlert, type AlertState, type Step } from './state.js';
import type { Target } from './targets.js';
import type { RoutingContext, RoutingLens } from './routingLens.js';
import { drainedObservation, type RecentReader } from './drained.js';
import type { Observation } from './decision.js';
import { ruleFor, windowSecOf } from './rules.js';

export interface StepContext {
  rules: AlertRules;
  coordination: CoordinationStore;
  stateTtlMs: number;
  failures?: FailuresReader;
  logger?: PulseLogger;
  /** Counts a failed state write (the evaluator's status). */
  onStoreError(): void;
  lens?: RoutingLens;
  /** The newest outcomes of a series, read only for channels the router drained (drained.ts). */
  recent?: RecentReader;
}

export interface TargetStep {
  /** The alert as every instance shows it after this step, or null when it is not active. */
  shown: ActiveAlert | null;
  /** Set only on the instance whose write won a transition. */
  notification?: AlertNotification;
  /** With `notification`: the state this instance stored, evidence included (what a durable copy keeps). */
  stored?: AlertState;
}

function identityOf(t: Target): AlertIdentity {
  const { key: _key, observation: _o, health: _h, window: _w, ...identity } = t;
  return identity;
}

function mutedFields(mute: number | null, nowMs: number): { muted: boolean; mutedUntil?: number } {
  return mute !== null && mute > nowMs ? { muted: true, mutedUntil: mute } : { muted: false };
}

/** Routing as of now, its "before" measured before the alert fired, so a share the router took away shows. */
function routingOf(ctx: StepContext, t: Target, since: number | null, nowMs: number): { routing?: RoutingContext } {
  const routing = ctx.lens?.contextOf(t.channel, since, nowMs);
  return routing ? { routing } : {};
}

/**
 * A rate alert of a channel the router drains is judged on its newest outcomes, and so it stays while the long
 * window still holds the time it was drained (drained.ts). An instance that does not route for the channel goes
 * by what the one that did stored (`drainedSince`, `drainedAt`). A store that cannot answer holds a firing alert
 * where it is.
 */
async function observationOf(ctx: StepContext, t: Target, previous: AlertState, nowMs: number): Promise<Observation> {
  if (t.rule !== 'rate' || !ctx.recent) return t.observation;
  const routing = ctx.lens?.contextOf(t.channel, previous.since, nowMs);
  const drained = routing ? routing.drained : previous.drainedSince !== undefined;
  const remembered = previous.drainedAt !== undefined && nowMs - previous.drainedAt < windowSecOf(ctx.rules.window) * 1000;
  if (!drained && !remembered) return t.observation;
  try {
    return await drainedObservation(ctx.recent, t.channel, t.dims, t.observation, previous, ruleFor(ctx.rules, t.channel), ctx.rules, nowMs, drained);
  } catch {
    const flag = drained ? { drained: true } : {};
    return previous.rank > 0 ? { fast: previous.rank, slow: previous.rank, ...flag } : { ...t.observation, ...flag };
  }
}

/** The window evidence is gathered over: the one quoted, or the short one when the newest outcomes were. */
function evidenceWindow(rules: AlertRules, t: Target, state: AlertState): string {
  const quoted = state.basis?.window ?? t.window;
  return Number.isNaN(windowSecOf(quoted)) ? rules.shortWindow ?? rules.window : quoted;
}

function activeOf(ctx: StepContext, t: Target, state: AlertState, mute: number | null, nowMs: number): ActiveAlert | null {
  const { rules } = ctx;
  const level = levelOf(state.rank);
  if (!level || state.since === null) return null;
  return {
    ...routingOf(ctx, t, state.since, nowMs),
    ...identityOf(t),
    level,
    since: state.since,
    levelSince: state.levelSince ?? state.since,
    rate: state.basis ?? null,
    window: state.basis?.window ?? t.window,
    evidence: (state.evidence as Evidence | undefined) ?? emptyEvidence,
    ...mutedFields(mute, nowMs),
    dashboardUrl: dashboardLink(rules.dashboardUrl, t.channel),
  };
}

async function announce(ctx: StepContext, t: Target, step: Step, previous: AlertState, version: number, mute: number | null, nowMs: number): Promise<{ notification: AlertNotification; state: AlertState }> {
  const { rules } = ctx;
  let state = step.state;
  const transition = step.transition!;
  if ((transition === 'firing' || transition === 'escalated') && t.rule !== 'silent') {
    // Evidence over the window of the rate quoted, so the summary's numbers describe one window.
    const evidence = await gatherEvidence(ctx.failures, t.health, t.channel, evidenceWindow(rules, t, state), rules.silent.enabled ? rules.silent.baseline : undefined);
    state = { ...state, evidence };
    // The evidence rides on the state so every instance's `active()` shows it; losing this write to the
    // next evaluation's step only loses the evidence there, never the transition.
    await ctx.coordination.compareAndSetState(t.key, version, JSON.stringify(state), ctx.stateTtlMs).catch(() => undefined);
  }
  const notification: AlertNotification = {
    ...identityOf(t),
    transition,
    level: levelOf(state.rank) ?? levelOf(previous.rank)!,
    previousLevel: levelOf(previous.rank),
    rate: state.basis ?? null,
    window: state.basis?.window ?? t.window,
    since: previous.since ?? state.since ?? nowMs,
    at: nowMs,
    ...routingOf(ctx, t, previous.since ?? state.since, nowMs),
    dashboardUrl: dashboardLink(rules.dashboardUrl, t.channel),
    evidence: (state.evidence as Evidence | undefined) ?? (previous.evidence as Evidence | undefined) ?? emptyEvidence,
    ...mutedFields(mute, nowMs),
  };
  return { notification, state };
}

/** Steps one target from its stored state; a lost compare-and-set shows the winner's state instead. */
export async function stepTarget(ctx: StepContext, t: Target, current: SharedState | null, mute: number | null, nowMs: number, slot: number): Promise<TargetStep> {
  const previous = parseState(current?.value);
  const observation = await observationOf(ctx, t, previous, nowMs);
  const step = stepAlert(previous, observation, { nowMs, slot, muted: mute !== null && mute > nowMs }, ctx.rules);
  let shown = previous;
  let notification: AlertNotification | undefined;
  if (step.changed) {
    try {
      const reply = await ctx.coordination.compareAndSetState(t.key, current?.version ?? 0, JSON.stringify(step.state), ctx.stateTtlMs);
      if (reply.written) {
        shown = step.state;
        if (step.transition) {
          const announced = await announce(ctx, t, step, previous, reply.version, mute, nowMs);
          notification = announced.notification;
          shown = announced.state;
        }
      } else if (reply.current) {
        shown = parseState(reply.current.value);
      }
    } catch (err) {
      ctx.onStoreError();
      ctx.logger?.warn({ err: (err as Error).message, alert: t.id }, 'paypulse: alert state write failed');
    }
  }
  return { shown: activeOf(ctx, t, shown, mute, nowMs), ...(notification ? { notification, stored: shown } : {}) };
}
