// A channel's success probability for a payment, with its uncertainty: a Beta posterior built from the
// coarsest series (the channel) to the finest (the payment's dims), each level's mean the prior of the next,
// so a dims series with few samples leans on its channel and a new channel on the fleet (docs/routing.md).
import type { ScoringPolicy } from './types.js';

/** Recency-blended counts of one series; failures exclude codes that are not the channel's fault. */
export interface Evidence {
  success: number;
  failure: number;
  /** Outcomes in the recent window alone (unblended): how current the evidence is. */
  recentTotal: number;
  /** The series holds a break that it has not shown it is back from: its rate before the break. */
  couldBe?: number;
}

export interface Posterior {
  alpha: number;
  beta: number;
}

/**
 * `levels` coarsest first. A level without outcomes passes its prior on unchanged, so a series the store has
 * never seen scores like its parent.
 */
export function posteriorOf(levels: ReadonlyArray<Evidence | undefined>, priorMean: number, priorStrength: number): Posterior {
  let mean = priorMean;
  let alpha = priorMean * priorStrength;
  let beta = (1 - priorMean) * priorStrength;
  for (const level of levels) {
    if (!level || level.success + level.failure <= 0) continue;
    alpha = mean * priorStrength + level.success;
    beta = (1 - mean) * priorStrength + level.failure;
    mean = alpha / (alpha + beta);
  }
  // A prior of strength 0 over no evidence: a flat Beta(1, 1) rather than a degenerate one.
  if (alpha + beta <= 0) return { alpha: 1, beta: 1 };
  return { alpha: Math.max(alpha, 1e-6), beta: Math.max(beta, 1e-6) };
}

export function posteriorMean(p: Posterior): number {
  return p.alpha / (p.alpha + p.beta);
}

function standardNormal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Marsaglia and Tsang's method; shapes below 1 through the boost Gamma(a) = Gamma(a + 1) · U^(1/a). */
export function sampleGamma(shape: number, random: () => number): number {
  if (shape < 1) return sampleGamma(shape + 1, random) * Math.pow(1 - random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = standardNormal(random);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Past this many pseudo-samples on each side the Beta is indistinguishable from its normal approximation. */
const normalFrom = 50;

export function sampleBeta(p: Posterior, random: () => number): number {
  const { alpha, beta } = p;
  if (alpha > normalFrom && beta > normalFrom) {
    const n = alpha + beta;
    const mean = alpha / n;
    const sd = Math.sqrt((mean * (1 - mean)) / (n + 1));
    return Math.min(1, Math.max(0, mean + sd * standardNormal(random)));
  }
  const x = sampleGamma(alpha, random);
  const y = sampleGamma(beta, random);
  return x + y === 0 ? alpha / (alpha + beta) : x / (x + y);
}

/** One-sided 90 % bound: optimistic enough to try an uncertain channel, not so much that it hogs traffic. */
const ucbZ = 1.2815515655446004;

export function upperBound(p: Posterior): number {
  const n = p.alpha + p.beta;
  const mean = p.alpha / n;
  return Math.min(1, mean + ucbZ * Math.sqrt((mean * (1 - mean)) / (n + 1)));
}

/** The ranking probability under a policy: a posterior draw, an upper bound, or the plain mean. */
export function scoreProbability(policy: ScoringPolicy, p: Posterior, random: () => number): number {
  if (policy === 'thompson') return sampleBeta(p, random);
  if (policy === 'ucb') return upperBound(p);
  return posteriorMean(p);
}

/** Expected value of a payment (decision-engine's multi-objective step): P(success) × (amount − cost). */
export function expectedValue(probability: number, amount: number, fixedFee: number, percentFee: number): number {
  return probability * (amount - fixedFee - percentFee * amount);
}
