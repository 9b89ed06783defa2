// How old evidence counts: each slice of the score windows is weighted by its age under a half-life, and the
// half-life is chosen per series by the data — the candidate that has best predicted the newest slice from the
// older ones (a running log-likelihood) wins. A shift is found by a generalised likelihood-ratio test between
// the newer evidence and an older slice; past it, the older slices are dropped (docs/routing.md).

/** Half-lives a series may choose from, seconds: from following a minute-long shift to an hour of stability. */
export const halfLivesSec = [20, 60, 240, 900, 3600] as const;
/** Where a new series starts, before it has predicted anything: the middle candidate. */
const startIndex = 2;
/** Each absorption keeps this share of a candidate's running score: a memory of a few minutes of snapshots. */
const scoreMemory = 0.99;
/**
 * χ² with one degree of freedom at p = 0.001: at a refresh a second, a steady channel's evidence is cut by
 * chance about once in 15 minutes per slice boundary, and a 0 % outage is found from two or three failures.
 */
export const shiftThreshold = 10.83;

/** Mid-age of each slice of windows (seconds, shortest first), less the newest slice's: the newest counts fully. */
export function sliceAgesSec(windowsSec: number[]): number[] {
  const mids = windowsSec.map((w, k) => ((k === 0 ? 0 : windowsSec[k - 1]!) + w) / 2);
  return mids.map((m) => m - mids[0]!);
}

/** Weight of each slice under every candidate half-life: weights[h][k]. */
export function sliceWeights(agesSec: number[]): number[][] {
  return halfLivesSec.map((h) => agesSec.map((a) => 2 ** (-a / h)));
}

function logLikelihood(s: number, f: number, p: number): number {
  return (s > 0 ? s * Math.log(p) : 0) + (f > 0 ? f * Math.log(1 - p) : 0);
}

/**
 * G statistic of "two rates" against "one rate" for s1/f1 and s2/f2: large when the newer evidence and an
 * older slice cannot share a rate.
 */
export function shiftStatistic(s1: number, f1: number, s2: number, f2: number): number {
  const n1 = s1 + f1;
  const n2 = s2 + f2;
  if (n1 === 0 || n2 === 0) return 0;
  const pooled = (s1 + s2) / (n1 + n2);
  return 2 * (logLikelihood(s1, f1, s1 / n1) + logLikelihood(s2, f2, s2 / n2) - logLikelihood(s1 + s2, f1 + f2, pooled));
}

/** Running scores of the candidate half-lives, per series; the caller drops series the snapshot no longer has. */
export class HalfLifeChooser {
  private scores = new Map<string, Float64Array>();
  private next = new Map<string, Float64Array>();

  constructor(private readonly weights: number[][]) {}

  /**
   * Scores each candidate on the newest slice (ds[0], df[0]) predicted from the older ones, and answers the
   * index of the best so far. Slices are per-slice counts, newest first.
   */
  choose(key: string, ds: number[], df: number[]): number {
    const scores = this.scores.get(key) ?? new Float64Array(halfLivesSec.length);
    this.next.set(key, scores);
    if (ds[0]! + df[0]! > 0 && ds.length > 1) {
      for (let h = 0; h < halfLivesSec.length; h++) {
        const w = this.weights[h]!;
        // Weights relative to slice 1, so the prediction's strength does not depend on the newest slice's age.
        let s = 1;
        let f = 1;
        for (let k = 1; k < ds.length; k++) {
          s += (w[k]! / w[1]!) * ds[k]!;
          f += (w[k]! / w[1]!) * df[k]!;
        }
        scores[h] = scoreMemory * scores[h]! + logLikelihood(ds[0]!, df[0]!, s / (s + f));
      }
    }
    return this.chosen(key);
  }

  /** The index `choose` last answered for the series in this absorption. */
  chosen(key: string): number {
    const scores = this.next.get(key);
    if (!scores) return startIndex;
    let best = startIndex;
    for (let h = 0; h < scores.length; h++) if (scores[h]! > scores[best]!) best = h;
    return best;
  }

  /** Ends an absorption: series not seen in it are forgotten. */
  settle(): void {
    this.scores = this.next;
    this.next = new Map();
  }
}
