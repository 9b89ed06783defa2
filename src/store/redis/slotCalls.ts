// Which channels travel in one script call: a call's keys must share a slot on a cluster (all share one on a
// single server), and a call is bounded, since Redis runs nothing else while it runs.

export interface CallLimits {
  channels: number;
  /** Outcomes a call carries at most, summed over `sizes`: a channel bigger than that goes alone. */
  outcomes: number;
}

/** Indexes of `sizes` (outcomes per channel, 0 for a read) per call: channels of one slot together, in order. */
export function slotCalls(sizes: number[], slotOf: (index: number) => number, limits: CallLimits): number[][] {
  const open = new Map<number, { indexes: number[]; outcomes: number }>();
  const calls: number[][] = [];
  sizes.forEach((size, i) => {
    const slot = slotOf(i);
    let call = open.get(slot);
    if (call && (call.indexes.length >= limits.channels || call.outcomes + size > limits.outcomes)) call = undefined;
    if (!call) {
      call = { indexes: [], outcomes: 0 };
      open.set(slot, call);
      calls.push(call.indexes);
    }
    call.indexes.push(i);
    call.outcomes += size;
  });
  return calls;
}
