// The recorder's batch split: big batches of busy channels go as parts in flight, quiet channels' stay whole.
import { describe, expect, it } from 'vitest';
import { nextBatchSize } from '../../src/stats/batchSize.js';

const queue = (outcomes: number, channels: number) => Array.from({ length: outcomes }, (_, i) => ({ channel: `c${i % channels}` }));

describe('nextBatchSize', () => {
  it('splits a big batch of few channels over the free slots, at least 1,000 outcomes a part', () => {
    expect(nextBatchSize(queue(2000, 1), 5000, 4)).toBe(1000);
    expect(nextBatchSize(queue(2000, 8), 5000, 4)).toBe(1000);
    expect(nextBatchSize(queue(5000, 1), 5000, 4)).toBe(1250);
    expect(nextBatchSize(queue(5000, 1), 5000, 2)).toBe(2500);
    expect(nextBatchSize(queue(1999, 1), 5000, 4)).toBe(1999);
  });

  it('keeps a batch whole when a part would bring a channel fewer than 32 outcomes, or no other slot is free', () => {
    expect(nextBatchSize(queue(2000, 40), 5000, 4)).toBe(2000);
    expect(nextBatchSize(queue(2000, 400), 5000, 4)).toBe(2000);
    expect(nextBatchSize(queue(2000, 1), 5000, 1)).toBe(2000);
  });

  it('never takes more than maxBatch', () => {
    expect(nextBatchSize(queue(12000, 1), 5000, 1)).toBe(5000);
    expect(nextBatchSize(queue(300, 1), 5000, 4)).toBe(300);
  });
});
