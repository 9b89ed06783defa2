// Breaker transitions reach the history store once for the fleet: four instances race for each transition,
// the one whose compare-and-set wins records it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createBreakerHistory, type BreakerHistory } from '../../src/history/breakerTransitions.js';
import { migrate } from '../../src/history/migrate.js';
import { resolveRoutingSettings } from '../../src/routing/settings.js';
import { SharedBreakers } from '../../src/routing/sharedBreakers.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { backends } from '../history/databases.js';

describe.each(backends)('breaker history on $name', (backend) => {
  let history: BreakerHistory;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    await migrate(opened.db);
    history = createBreakerHistory(opened.db);
  });
  afterAll(async () => dispose?.());

  it('holds each transition once, in order', async () => {
    const clock = new ManualClock(Date.UTC(2026, 3, 1));
    const store = new MemoryCoordinationStore(clock);
    const settings = resolveRoutingSettings().breaker;
    const writes: Promise<void>[] = [];
    const fleet = Array.from({ length: 4 }, () => new SharedBreakers({ store, namespace: 'h', settings, clock, onTransition: (t) => writes.push(history.record(t)) }, 30));
    const from = clock.now();
    await Promise.all(fleet.map((b) => b.sync([{ channel: 'bank-x', scope: '', window: { success: 10, failure: 90 } }])));
    // 100 calls in the 30 s window, nothing longer: the wait is sized by 3.3 calls a second, so it is openMaxMs.
    clock.advance(settings.openMaxMs);
    await Promise.all(fleet.map((b) => b.sync([{ channel: 'bank-x', scope: '', window: { success: 0, failure: 0 } }])));
    clock.advance(1000);
    await fleet[2]!.setMode('bank-x', 'force-closed');
    await Promise.all(writes);
    const rows = await history.list('bank-x', { from, to: clock.now() });
    expect(rows.map((r) => `${r.from}→${r.to}/${r.mode}`)).toEqual(['closed→open/auto', 'open→half-open/auto', 'half-open→closed/force-closed']);
    expect(rows[0]!.at).toBe(from);
    expect(await history.list('other', { from, to: clock.now() })).toEqual([]);
  });
});
