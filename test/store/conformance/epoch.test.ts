// The store's epoch on every engine: written at first use and the same for every later read while the store
// keeps its data, so the history job can tell a store that kept its data from one that lost it.
import { describe, expect, it } from 'vitest';
import { statsEngines, start } from '../../support/statsEngines.js';

describe.each(statsEngines())('store epoch: $name', (engine) => {
  it('begins at first use and stays the same while the store keeps its data', async () => {
    const { pulse, clock } = await engine.make();
    clock.set(start + 5_000);
    await pulse.record({ channel: 'alipay', requestId: 'r1', status: 'success', at: start + 4_000 });
    clock.set(start + 3600_000);
    const first = await pulse.storeEpoch();
    // The embedded store begins with its first write; Redis with the first epoch read (the write path stays one call).
    expect(first.startedAt).toBe(engine.name === 'memory' ? start + 5_000 : start + 3600_000);
    expect(first.completeFrom).toBe(first.startedAt + pulse.settings.skewToleranceMs);
    clock.advance(60_000);
    expect(await pulse.storeEpoch()).toEqual(first);
    await pulse.close();
  });
});
