// Which channels travel in one script call: a call's keys must be on one node of a cluster (every key is
// on the one node of a single server), and a call is bounded, since Redis runs nothing else while it runs.

export interface CallLimits {
  channels: number;
  /** Outcomes a call carries at most, summed over `sizes`: a channel bigger than that goes alone. */
  outcomes: number;
}

/** Indexes of `sizes` (outcomes per channel, 0 for a read) per call: channels of one node together, in order. */
export function nodeCalls(sizes: number[], nodeOf: (index: number) => number | string, limits: CallLimits): number[][] {
  const open = new Map<number | string, { indexes: number[]; outcomes: number }>();
  const calls: number[][] = [];
  sizes.forEach((size, i) => {
    const node = nodeOf(i);
    let call = open.get(node);
    if (call && (call.indexes.length >= limits.channels || call.outcomes + size > limits.outcomes)) call = undefined;
    if (!call) {
      call = { indexes: [], outcomes: 0 };
      open.set(node, call);
      calls.push(call.indexes);
    }
    call.indexes.push(i);
    call.outcomes += size;
  });
  return calls;
}

/** `indexes` grouped by their channel's slot, in order of first appearance: a Lua call goes a slot at a time. */
export function groupBySlot(indexes: number[], slotOf: (index: number) => number): number[][] {
  const slots = new Map<number, number[]>();
  for (const i of indexes) {
    const slot = slotOf(i);
    const ofSlot = slots.get(slot);
    if (ofSlot) ofSlot.push(i);
    else slots.set(slot, [i]);
  }
  return [...slots.values()];
}

/** The errors of a call whose keys are on a node that no longer serves all their slots. */
export function slotMoved(err: unknown): boolean {
  return err instanceof Error && /non local key|^(MOVED|ASK|TRYAGAIN|CROSSSLOT)\b/.test(err.message);
}
