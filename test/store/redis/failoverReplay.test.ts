// The Sentinel store's replay of recent batches: bounded, in order, retried while the new primary fails.
import { describe, expect, it } from 'vitest';
import { StatusCode, type StoredOutcome } from '../../../src/store/ports/stats.js';
import { FailoverReplay } from '../../../src/store/redis/failoverReplay.js';
import { eventually } from '../../kit/engines.js';

const outcome = (requestId: string): StoredOutcome => ({ requestId, status: StatusCode.Success, at: 1, code: '', series: [''], hash: 0 });

describe('failover replay', () => {
  it('writes the remembered batches again in order, keeps at most maxOutcomes, and retries a failed replay', async () => {
    const written: string[] = [];
    let failuresLeft = 1;
    const replays: Array<{ outcomes: number; failed: boolean }> = [];
    const replay = new FailoverReplay({
      rewrite: async (channel, outcomes) => {
        if (failuresLeft-- > 0) throw new Error('new primary loading');
        written.push(...outcomes.map((o) => `${channel}/${o.requestId}`));
      },
      maxOutcomes: 4,
      replayDelaysMs: [0, 20],
      onReplay: (outcomes, error) => void replays.push({ outcomes, failed: error !== undefined }),
    });
    replay.remember('a', [outcome('1'), outcome('2')], 10);
    replay.remember('b', [outcome('3')], 11);
    replay.remember('a', [outcome('4'), outcome('5')], 12); // 5 outcomes held: the oldest batch goes
    expect(replay.heldOutcomes).toBe(3);
    replay.primaryChanged();
    await eventually(() => replays.length === 2, 2_000);
    expect(replays).toEqual([{ outcomes: 0, failed: true }, { outcomes: 3, failed: false }]);
    expect(written).toEqual(['b/3', 'a/4', 'a/5']);
    replay.close();
    expect(replay.heldOutcomes).toBe(0);
  });
});
