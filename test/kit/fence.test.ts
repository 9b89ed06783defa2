// The fence enforced where the money is: a write from a holder whose lock was lost (and taken by someone
// with a higher fence) changes nothing. Runs the generated SQL on embedded PostgreSQL (PGlite).
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { fencedUpdate, fencedUpdateExample } from '../../src/kit/fence.js';

let db: PGlite;
beforeAll(async () => {
  db = new PGlite();
  await db.exec(`CREATE TABLE payment_orders (order_id text PRIMARY KEY, status text NOT NULL, fence bigint NOT NULL DEFAULT 0);
                 INSERT INTO payment_orders (order_id, status) VALUES ('o-1', 'pending');`);
});
afterAll(async () => {
  await db?.close();
});

const statusOf = async () => (await db.query<{ status: string; fence: string }>(`SELECT status, fence::text FROM payment_orders WHERE order_id = 'o-1'`)).rows[0];

describe('fenced writes', () => {
  it('apply a newer fence and refuse a stale one', async () => {
    const stale = 1_767_225_600_000_001; // fences exceed 2^31: the column must be bigint
    const fresh = stale + 1;
    const newer = fencedUpdate({ table: 'payment_orders', set: { status: 'paid' }, where: { order_id: 'o-1' }, fence: fresh });
    expect((await db.query(newer.text, newer.values)).affectedRows).toBe(1);
    const late = fencedUpdate({ table: 'payment_orders', set: { status: 'failed' }, where: { order_id: 'o-1' }, fence: stale });
    expect((await db.query(late.text, late.values)).affectedRows).toBe(0); // fenced out
    expect(await statusOf()).toEqual({ status: 'paid', fence: String(fresh) });
    const example = await db.query(fencedUpdateExample, [fresh, 'refunded', 'o-1']);
    expect(example.affectedRows).toBe(0); // an equal fence is not newer
  });

  it('only takes plain identifiers and a positive fence', () => {
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as ValidationError).issues[0].field;
      }
      return undefined;
    };
    expect(field(() => fencedUpdate({ table: 'orders; DROP TABLE x', set: { a: 1 }, where: { id: 1 }, fence: 1 }))).toBe('table');
    expect(field(() => fencedUpdate({ table: 't', set: { 'a"': 1 }, where: { id: 1 }, fence: 1 }))).toBe('set.a"');
    expect(field(() => fencedUpdate({ table: 't', set: { a: 1 }, where: {}, fence: 1 }))).toBe('where');
    expect(field(() => fencedUpdate({ table: 't', set: { a: 1 }, where: { id: 1 }, fence: 0 }))).toBe('fence');
  });
});
