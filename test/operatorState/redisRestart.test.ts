// Operator state survives a Redis restarted empty (kill -9, started again on the same port without its data):
// with two instances, three firing alerts, a forced breaker and a mute, the override and the mute come back on
// both instances, alerts still failing keep firing without a second page, the one that recovered resolves with
// one `resolved`, and the history ends every alert that is not firing. An alert whose state alone was lost is
// resolved once fleet-wide. Real redis-server, real PostgreSQL, a real webhook receiver.
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dropAt } from '../../src/sim/steadyTraffic.js';
import { coordinationKey } from '../../src/store/keys/coordination.js';
import { eventually } from '../kit/engines.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { openRestartFleet, startReceiver, type Receiver, type RestartFleet } from './restartFleet.js';

const start = Date.UTC(2026, 6, 1, 9);
const minute = 60_000;
let redis: LocalRedis;
let receiver: Receiver;
let fleet: RestartFleet | undefined;
let namespaces = 0;

beforeAll(async () => {
  redis = await startRedis();
  receiver = await startReceiver();
}, 30_000);
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
  receiver.received.length = 0;
});
afterAll(async () => {
  await receiver?.close();
  await redis?.stop();
});

const sentFor = (id: string, transition: string) => receiver.received.filter((n) => n.id === id && n.transition === transition).length;
const firingIds = (f: RestartFleet, i: number) => f.pulses[i]!.alerts!.active().map((a) => a.id).sort();

async function runUntil(f: RestartFleet, until: number): Promise<void> {
  while (f.clock.now() < until) await f.step();
}

async function restartRedisEmpty(f: RestartFleet): Promise<void> {
  await redis.restart();
  // The clients reconnect on their own schedule (wall time).
  for (const p of f.pulses) await eventually(() => p.storeEpoch().then(() => true, () => false), 15_000);
}

describe('operator state across a Redis restarted empty', () => {
  it('restores the override and the mute on both instances; alerts keep firing or resolve once; history ends them', async () => {
    const restartAt = start + 4 * minute;
    const f = (fleet = await openRestartFleet({
      redis, receiver, namespace: `restart${process.pid}-${++namespaces}`, start,
      channels: [
        { name: 'acq-a', perMinute: 3000, successAt: dropAt(start + minute, 0.3) },
        { name: 'acq-b', perMinute: 3000, successAt: dropAt(start + minute, 0.3) },
        // Recovers when Redis restarts: its alert must resolve, with a notification.
        { name: 'acq-c', perMinute: 3000, successAt: dropAt(start + minute, 0.3, 0.97, restartAt) },
        { name: 'acq-d', perMinute: 3000, successAt: () => 0.97 },
      ],
    }));
    const ids = ['rate/@acq-a', 'rate/@acq-b', 'rate/@acq-c'];
    await runUntil(f, restartAt);
    expect(firingIds(f, 0)).toEqual(ids);
    expect(firingIds(f, 1)).toEqual(ids);
    const until = f.clock.now() + 2 * 3600_000;
    expect((await f.pulses[0]!.breaker('acq-d').setMode('force-open')).mode).toBe('force-open');
    await f.pulses[1]!.alerts!.mute('acq-d', until);
    await f.delivered();
    for (const id of ids) expect(sentFor(id, 'firing')).toBe(1);

    await restartRedisEmpty(f);
    // The fault happened: Redis no longer holds the override.
    expect((await f.pulses[1]!.breaker('acq-d').state()).mode).toBe('auto');
    await f.checkAll();
    for (const p of f.pulses) {
      const breaker = await p.breaker('acq-d').state();
      expect([breaker.mode, breaker.state]).toEqual(['force-open', 'open']);
      expect(await p.alerts!.muteOf('acq-d')).toBe(until);
    }
    const restored = f.pulses.map((p) => p.operatorState!.stats.restored);
    expect(restored.reduce((t, r) => t + r.breaker, 0)).toBe(1);
    expect(restored.reduce((t, r) => t + r.mute, 0)).toBe(1);
    expect(restored.reduce((t, r) => t + r.alert, 0)).toBe(3);

    await runUntil(f, restartAt + 2 * minute);
    await f.checkAll();
    await f.delivered();
    expect(firingIds(f, 0)).toEqual(ids.slice(0, 2));
    expect(firingIds(f, 1)).toEqual(ids.slice(0, 2));
    // Still failing: no second page. Recovered: one resolved for the fleet.
    for (const id of ids) expect(sentFor(id, 'firing')).toBe(1);
    expect(sentFor('rate/@acq-c', 'resolved')).toBe(1);
    await eventually(async () => (await f.lastTransitions()).get('rate/@acq-c') === 'resolved', 5_000);
    const last = await f.lastTransitions();
    for (const id of ids.slice(0, 2)) expect(['firing', 'escalated']).toContain(last.get(id));
  }, 120_000);

  it('resolves an alert whose live state alone was lost once fleet-wide, with a notification and a history row', async () => {
    const namespace = `orphan${process.pid}-${++namespaces}`;
    // One window, so a channel gone silent for a minute gives an evaluation from scratch nothing to fire on.
    const failingThenSilent = (at: number) => (at < start + minute ? 0.97 : at < start + 3 * minute ? 0.3 : null);
    const f = (fleet = await openRestartFleet({
      redis, receiver, namespace, start,
      channels: [{ name: 'acq-e', perMinute: 3000, successAt: failingThenSilent }],
      alerts: { window: '1m', shortWindow: false },
    }));
    await runUntil(f, start + 4 * minute);
    expect(firingIds(f, 0)).toEqual(['rate/@acq-e']);
    // The key goes as an eviction or a failover to a replica that missed the write would take it: the store's
    // epoch stays, so nothing is restored, and no evaluation will resolve it (nor fire it again).
    const key = coordinationKey(namespace, 'acq-e', 'alert', 'rate/');
    expect(spawnSync('redis-cli', ['-p', String(redis.port), 'DEL', key], { encoding: 'utf8' }).stdout.trim()).toBe('1');
    await runUntil(f, start + 6 * minute);
    expect(firingIds(f, 0)).toEqual([]);
    await f.delivered();
    expect(sentFor('rate/@acq-e', 'resolved')).toBe(0);
    await f.checkAll();
    await f.delivered();
    expect(f.pulses.reduce((t, p) => t + p.operatorState!.stats.orphansResolved, 0)).toBe(1);
    expect(sentFor('rate/@acq-e', 'resolved')).toBe(1);
    await eventually(async () => (await f.lastTransitions()).get('rate/@acq-e') === 'resolved', 5_000);
    // A second round finds nothing left to resolve.
    await f.checkAll();
    expect(f.pulses.reduce((t, p) => t + p.operatorState!.stats.orphansResolved, 0)).toBe(1);
  }, 120_000);

  it('counts a durable write that failed, keeps the override live, and saves it once the database takes it', async () => {
    const f = (fleet = await openRestartFleet({ redis, receiver, namespace: `retry${process.pid}-${++namespaces}`, start, channels: [] }));
    const p = f.pulses[0]!;
    // The database refuses the write (its table gone for a moment, as in a botched manual change).
    await f.sql.query('ALTER TABLE operator_state RENAME TO operator_state_away');
    try {
      expect((await p.breaker('acq-x').setMode('force-closed')).mode).toBe('force-closed');
      expect(p.operatorState!.stats).toMatchObject({ writeFailures: 1, unsaved: 1 });
    } finally {
      await f.sql.query('ALTER TABLE operator_state_away RENAME TO operator_state');
    }
    await p.operatorState!.check();
    const rows = await f.sql.query<{ value: string }>(`SELECT value FROM operator_state WHERE kind = 'breaker' AND channel = 'acq-x'`);
    expect(rows.map((r) => (JSON.parse(r.value) as { mode: string }).mode)).toEqual(['force-closed']);
    expect(p.operatorState!.stats.unsaved).toBe(0);
  }, 60_000);
});
