// A small sorted list with Redis sorted-set order (score, then member, both ascending), for the
// embedded engine's last-N, failures and pending deadlines. Binary search keeps inserts O(log n)
// to find and O(n) to shift, which is fine for the capped sizes it holds.

export class SortedList {
  private readonly scores: number[] = [];
  private readonly members: string[] = [];
  private readonly scoreOf = new Map<string, number>();

  get size(): number {
    return this.members.length;
  }

  score(member: string): number | undefined {
    return this.scoreOf.get(member);
  }

  private position(score: number, member: string): number {
    let lo = 0;
    let hi = this.scores.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.scores[mid];
      if (s < score || (s === score && this.members[mid] < member)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(member: string, score: number): void {
    this.remove(member);
    const i = this.position(score, member);
    this.scores.splice(i, 0, score);
    this.members.splice(i, 0, member);
    this.scoreOf.set(member, score);
  }

  remove(member: string): boolean {
    const score = this.scoreOf.get(member);
    if (score === undefined) return false;
    const i = this.position(score, member);
    this.scores.splice(i, 1);
    this.members.splice(i, 1);
    this.scoreOf.delete(member);
    return true;
  }

  /** Members with score in [min, max], highest first, at most `limit`. */
  reverseRange(max: number, min: number, limit: number): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    for (let i = this.position(max, '\uffff') - 1; i >= 0 && out.length < limit; i--) {
      if (this.scores[i] > max) continue;
      if (this.scores[i] < min) break;
      out.push([this.members[i], this.scores[i]]);
    }
    return out;
  }

  /** Members with score <= max, lowest first, at most `limit`. */
  rangeUpTo(max: number, limit: number): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    for (let i = 0; i < this.scores.length && this.scores[i] <= max && out.length < limit; i++) {
      out.push([this.members[i], this.scores[i]]);
    }
    return out;
  }

  /** Drops members scoring below `min`, then the lowest until at most `keep` remain. */
  trim(min: number, keep: number): void {
    let cut = 0;
    while (cut < this.scores.length && this.scores[cut] < min) cut++;
    cut = Math.max(cut, this.scores.length - keep);
    if (cut <= 0) return;
    for (const member of this.members.slice(0, cut)) this.scoreOf.delete(member);
    this.scores.splice(0, cut);
    this.members.splice(0, cut);
  }
}
