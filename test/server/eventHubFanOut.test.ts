// The hub's fan-out to many subscribers: in slices with a turn of the event loop between them (so a
// request is served while 2,000 stream sockets are written), every subscriber still getting every event once, in order.
import { setImmediate } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { EventHub, subscribersPerTurn } from '../../src/server/stream/eventHub.js';

it('lets the event loop turn between slices of subscribers, and delivers every event to each in order', async () => {
  const hub = new EventHub();
  const subscribers = 3 * subscribersPerTurn + 7;
  const received = Array.from({ length: subscribers }, () => [] as number[]);
  received.forEach((ids) => hub.subscribe((event) => ids.push(event.id)));
  let turned = false;
  void setImmediate().then(() => (turned = true));
  let deliveredWhenTurned = -1;
  void setImmediate().then(() => (deliveredWhenTurned = received.filter((ids) => ids.length > 0).length));

  hub.publish('rates', { n: 1 });
  hub.publish('rates', { n: 2 }); // while the first is still being fanned out
  expect(turned).toBe(false);
  expect(received[0]).toEqual([1]); // the first slice is written before publish returns
  expect(received.at(-1)).toEqual([]);

  while (received.some((ids) => ids.length < 2)) await setImmediate();
  expect(deliveredWhenTurned).toBeGreaterThan(0);
  expect(deliveredWhenTurned).toBeLessThan(subscribers); // the loop turned mid-fan-out
  expect(received.every((ids) => ids.join() === '1,2')).toBe(true);
});

it('writes to a few subscribers before publish returns, as before', () => {
  const hub = new EventHub();
  const ids: number[] = [];
  hub.subscribe((event) => ids.push(event.id));
  hub.publish('rates', {});
  expect(ids).toEqual([1]);
});
