// How record batches travel to the strategies' `record` scripts: each channel's outcomes as one part of a
// MessagePack array (the layout record.lua reads), and several channels' parts in one `recordMany` call
// where their keys are on one node. At low volume per channel a batch of 500 outcomes
// brings each channel one or two, and a script call per channel cost more Redis CPU than the outcomes
// (docs/decisions/090-record-batches-and-calls.md, 064 for a cluster).
import { StatusCode, type EngineSettings, type StoredOutcome } from '../ports/stats.js';
import { countAsNew } from './clientCounts.js';
import { ledgerField, ledgerShard, ledgerState, recordBatch } from './layouts.js';
import type { RedisReply } from './connection.js';
import type { RedisStrategy } from './strategies.js';
import type { PackWriter } from './msgpack.js';

/**
 * Limits of one `recordMany` call. Lua's unpack() of the prefixes stops near 8,000 values. Redis runs
 * nothing else while a call runs: 5,000 outcomes is the recorder's largest batch, which one channel's
 * call could already carry; smaller calls measured no better (decision 090).
 */
export const recordManyLimits = { channels: 500, outcomes: 5_000 };

/**
 * Each channel's ledger split count as its last record reply gave it, for the shards its next part sends
 * (layouts.ts, ledgerShard). Bounded (twice the pulse's default 10,000 channels): past it the longest
 * unrecorded channel goes, and its next part's shards are the script's to find.
 */
export class LedgerSplitHints {
  private readonly splits = new Map<string, number>();

  constructor(private readonly maxChannels = 20_000) {}

  of(channel: string): number {
    return this.splits.get(channel) ?? 0;
  }

  note(channel: string, splits: RedisReply): void {
    this.splits.delete(channel);
    this.splits.set(channel, Number(splits));
    if (this.splits.size > this.maxChannels) this.splits.delete(this.splits.keys().next().value!);
  }
}

/** One channel's part of a record batch, in the order record.lua reads it. */
export function packRecordPart(w: PackWriter, prefix: string, outcomes: StoredOutcome[], now: number, settings: EngineSettings, strategy: RedisStrategy, splits: number): void {
  // Outcomes share few distinct series lists: the part sends each list once, and each outcome
  // refers to its list by number. The recorder shares one list among outcomes without dims, so the
  // previous outcome's list is tried first by identity.
  const groupOf = new Map<string, number>();
  const lists: Array<readonly string[]> = [];
  let lastList: readonly string[] | undefined;
  let lastGroup = 0;
  const groups = outcomes.map((o) => {
    if (o.series === lastList) return lastGroup;
    const listKey = o.series.join('\t');
    let group = groupOf.get(listKey);
    if (group === undefined) {
      group = lists.push(o.series);
      groupOf.set(listKey, group);
    }
    lastList = o.series;
    lastGroup = group;
    return group;
  });
  w.int(lists.length);
  for (const list of lists) {
    w.int(list.length);
    for (const series of list) w.str(series);
  }
  // A strategy whose script counts member by member (no clientCounts) takes none.
  const counted = strategy.clientCounts ? [...countAsNew(outcomes, groups, now, settings)] : [];
  w.int(counted.length);
  for (const c of counted) w.int(c.group).int(c.sec).int(c.successes).int(c.failures).bytes(Buffer.from(c.records)); // recordBatch.clientCountValues
  // recordBatch.outcomeValues, in order: the ledger state is the request's if it is new, as text
  // that Lua uses as sent (a number costs Redis more: it writes it out as text for every command).
  // The split count goes with them: while the channel has as many, the script takes each outcome's shard
  // as sent (ledger.lua's writeIfNew).
  w.int(outcomes.length).int(splits);
  // Without a ledger, outcomes carry no shard key (shard 0, key '').
  const layout = strategy.ledger ? ledgerShard.layout(splits, settings.ledgerShards) : undefined;
  outcomes.forEach((o, i) => {
    const state = ledgerState.encode(o.at, o.status === StatusCode.Pending, o.status);
    const bits = ledgerField.hashBits(o.hash);
    w.decimal(state).prefixedStr(bits, ledgerField.hashBytes, o.requestId);
    const shard = layout ? ledgerShard.of(bits, layout) : 0;
    w.int(shard).str(layout ? ledgerShard.key(prefix, shard) : '');
    // The common outcome leaves its status, code and group to recordBatch.plainSuccess.
    if (o.status === StatusCode.Success && o.code === '' && groups[i] === 1) w.int(recordBatch.plainSuccess);
    else w.int(o.status).str(o.code).int(groups[i]);
  });
}
