// The measured A/B: decisions routed by the static weights (arm 'static') against the router's (arm 'router').
// A decision made with a requestId remembers its arm in this process; that request's outcome, recorded through
// this instance, is credited to the arm. The counts are the fleet's: each instance adds what it counted to one
// record in the coordination store by compare-and-set, once a refresh, so every instance reports the same
// experiment (docs/routing.md, "Measured A/B").
import type { CoordinationStore } from '../store/ports/coordination.js';
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
interface ArmCounts {
  decisions: number;
  success: number;
  failure: number;
}
type Counts = Record<Arm, ArmCounts>;

const zero = (): Counts => ({ router: { decisions: 0, success: 0, failure: 0 }, static: { decisions: 0, success: 0, failure: 0 } });
const arms: Arm[] = ['router', 'static'];
const fields: Array<keyof ArmCounts> = ['decisions', 'success', 'failure'];
/** The record lives 30 days past its last addition: an experiment left running keeps its counts. */
const ttlMs = 30 * 24 * 3600_000;
const casAttempts = 5;

function add(into: Counts, more: Counts): Counts {
  const out = zero();
  for (const a of arms) for (const f of fields) out[a][f] = into[a][f] + more[a][f];
  return out;
}

/** A stored record that does not parse counts as empty rather than breaking the report. */
function decodeCounts(value: string | undefined): Counts {
  if (value === undefined) return zero();
  try {
    const parsed = JSON.parse(value) as Partial<Record<Arm, Partial<ArmCounts>>>;
    const out = zero();
    for (const a of arms) for (const f of fields) out[a][f] = Math.max(0, Number(parsed[a]?.[f]) || 0);
    return out;
  } catch {
    return zero();
  }
}

/** Abramowitz–Stegun 7.1.26: enough digits for a p-value. */
function normalTail(z: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(z));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return 0.5 * poly * Math.exp(-(z * z) / 2);
}

function reportOf(share: number, c: Counts): ExperimentReport {
  const arm = (a: Arm): ArmReport => {
    const total = c[a].success + c[a].failure;
    return { ...c[a], rate: total ? c[a].success / total : null, ...wilson(c[a].success, total) };
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
  return { share, arms: { router, static: fixed }, difference, pValue, significant: pValue !== null && pValue < 0.05 };
}

export class Experiment {
  private readonly pending = new Map<string, Arm>();
  /** Counted here and not yet added to the fleet's record. */
  private unsent = zero();
  private flushing: Promise<void> | null = null;

  /** `maxPending` bounds the requests awaiting an outcome; the oldest are forgotten first. */
  constructor(
    readonly share: number,
    private readonly store: CoordinationStore,
    private readonly key: string,
    private readonly maxPending = 100_000,
  ) {}

  noteDecision(requestId: string | undefined, arm: Arm): void {
    if (this.share <= 0) return;
    this.unsent[arm].decisions++;
    if (requestId === undefined) return;
    if (this.pending.size >= this.maxPending) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(requestId, arm);
  }

  /** Credits a terminal outcome; false when the request was not routed here under the experiment. */
  credit(requestId: string, success: boolean): boolean {
    const arm = this.pending.get(requestId);
    if (arm === undefined) return false;
    this.pending.delete(requestId);
    if (success) this.unsent[arm].success++;
    else this.unsent[arm].failure++;
    return true;
  }

  /**
   * Adds what this instance counted since the last flush to the fleet's record. A lost race re-reads and
   * retries; a store error keeps the counts for the next flush, so nothing is lost while the store is away.
   */
  flush(): Promise<void> {
    this.flushing ??= this.addUnsent().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async addUnsent(): Promise<void> {
    const delta = this.unsent;
    if (arms.every((a) => fields.every((f) => delta[a][f] === 0))) return;
    this.unsent = zero();
    try {
      let [stored] = await this.store.readStates([this.key]);
      for (let attempt = 0; attempt < casAttempts; attempt++) {
        const next = add(decodeCounts(stored?.value), delta);
        const reply = await this.store.compareAndSetState(this.key, stored?.version ?? 0, JSON.stringify(next), ttlMs);
        if (reply.written) return;
        stored = reply.current;
      }
      throw new Error(`experiment: ${casAttempts} lost compare-and-set races in a row`);
    } catch (err) {
      this.unsent = add(this.unsent, delta);
      throw err;
    }
  }

  /** The fleet's experiment: this instance's counts flushed, then the record read. Throws when the store fails. */
  async report(): Promise<ExperimentReport> {
    await this.flush();
    const [stored] = await this.store.readStates([this.key]);
    return reportOf(this.share, decodeCounts(stored?.value));
  }
}
