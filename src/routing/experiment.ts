// The measured A/B: decisions routed by the static weights (arm 'static') against the router's (arm 'router').
// A decision made with a requestId remembers its arm; that request's outcome, when recorded through this
// instance, is credited to the arm. Counts are this process's (docs/routing.md).
import { wilson } from '../stats/wilson.js';
import type { RouteDecision } from './types.js';

export interface ArmReport {
  decisions: number;
  success: number;
  failure: number;
  rate: number | null;
  low: number | null;
  high: number | null;
}

export interface ExperimentReport {
  share: number;
  arms: { router: ArmReport; static: ArmReport };
  /** Router's rate minus the static arm's, when both have outcomes. */
  difference: number | null;
  /** Two-sided p-value of a two-proportion z-test on the difference. */
  pValue: number | null;
  significant: boolean;
}

type Arm = RouteDecision['arm'];

/** Abramowitz–Stegun 7.1.26: enough digits for a p-value. */
function normalTail(z: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(z));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return 0.5 * poly * Math.exp(-(z * z) / 2);
}

export class Experiment {
  private readonly pending = new Map<string, Arm>();
  private readonly counts = { router: { decisions: 0, success: 0, failure: 0 }, static: { decisions: 0, success: 0, failure: 0 } };

  /** `maxPending` bounds the requests awaiting an outcome; the oldest are forgotten first. */
  constructor(
    readonly share: number,
    private readonly maxPending = 100_000,
  ) {}

  noteDecision(requestId: string | undefined, arm: Arm): void {
    if (this.share <= 0) return;
    this.counts[arm].decisions++;
    if (requestId === undefined) return;
    if (this.pending.size >= this.maxPending) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(requestId, arm);
  }

  /** Credits a terminal outcome; false when the request was not routed here under the experiment. */
  credit(requestId: string, success: boolean): boolean {
    const arm = this.pending.get(requestId);
    if (arm === undefined) return false;
    this.pending.delete(requestId);
    if (success) this.counts[arm].success++;
    else this.counts[arm].failure++;
    return true;
  }

  report(): ExperimentReport {
    const arm = (a: Arm): ArmReport => {
      const c = this.counts[a];
      const total = c.success + c.failure;
      return { ...c, rate: total ? c.success / total : null, ...wilson(c.success, total) };
    };
    const router = arm('router');
    const fixed = arm('static');
    let difference: number | null = null;
    let pValue: number | null = null;
    const n1 = router.success + router.failure;
    const n2 = fixed.success + fixed.failure;
    if (n1 > 0 && n2 > 0) {
      difference = router.rate! - fixed.rate!;
      const pooled = (router.success + fixed.success) / (n1 + n2);
      const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
      pValue = se === 0 ? (difference === 0 ? 1 : 0) : Math.min(1, 2 * normalTail(difference / se));
    }
    return { share: this.share, arms: { router, static: fixed }, difference, pValue, significant: pValue !== null && pValue < 0.05 };
  }
}
