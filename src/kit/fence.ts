// Enforcing the fence where the money is (Redis is a coordinator, never the ledger; failover can
// lose a lock, so the database is the last guard; docs/background.md). A write carries its lock's fence and only applies if no
// newer holder has written: `UPDATE … SET …, fence = $1 WHERE … AND fence < $1`. Zero rows updated means
// "fenced out": a later holder got there first, and this holder must stop.
import { invalidField } from './errors.js';

/** The pattern, for a table `payment_orders(order_id text primary key, status text, fence bigint not null default 0)`. */
export const fencedUpdateExample =
  'UPDATE payment_orders SET status = $2, fence = $1 WHERE order_id = $3 AND fence < $1';

const identifier = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function quoteIdentifier(name: string, field: string): string {
  // Identifiers cannot be bound as parameters; allow only plain names so nothing can be injected.
  if (!identifier.test(name)) throw invalidField(field, `must be a plain SQL identifier, got ${JSON.stringify(name)}`);
  return `"${name}"`;
}

export interface FencedUpdate {
  table: string;
  /** Columns to write. */
  set: Record<string, unknown>;
  /** Equality conditions selecting the row(s), e.g. { order_id: 'o-1' }. */
  where: Record<string, unknown>;
  /** The lock's fence (LockHandle.fence). */
  fence: number;
  /** Column holding the last fence applied; default `fence` (type bigint: fences exceed 2^31). */
  fenceColumn?: string;
}

/** A parameterised statement for `postgres`' sql.unsafe(text, values), node-postgres or PGlite's query(). */
export function fencedUpdate(update: FencedUpdate): { text: string; values: unknown[] } {
  if (!Number.isSafeInteger(update.fence) || update.fence <= 0) throw invalidField('fence', 'must be a positive safe integer');
  const setEntries = Object.entries(update.set);
  const whereEntries = Object.entries(update.where);
  if (setEntries.length === 0) throw invalidField('set', 'must name at least one column');
  if (whereEntries.length === 0) throw invalidField('where', 'must name at least one column: a fenced write targets rows');
  const fenceColumn = quoteIdentifier(update.fenceColumn ?? 'fence', 'fenceColumn');
  const values: unknown[] = [update.fence];
  const param = (value: unknown) => `$${values.push(value)}`;
  const assignments = setEntries.map(([column, value]) => `${quoteIdentifier(column, `set.${column}`)} = ${param(value)}`);
  const conditions = whereEntries.map(([column, value]) => `${quoteIdentifier(column, `where.${column}`)} = ${param(value)}`);
  const text =
    `UPDATE ${quoteIdentifier(update.table, 'table')} SET ${[...assignments, `${fenceColumn} = $1`].join(', ')}` +
    ` WHERE ${[...conditions, `${fenceColumn} < $1`].join(' AND ')}`;
  return { text, values };
}
