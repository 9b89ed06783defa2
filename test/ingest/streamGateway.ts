// What a gateway does, for the stream ingestion tests: XADD one entry per outcome, fields as strings, dims
// as `dims.<name>`. A raw node-redis client of the test's own, on the test's own redis-server.
import { createClient, type RedisClientType } from 'redis';
import type { Outcome } from '../../src/types.js';

export type GatewayClient = RedisClientType;

export async function connectGateway(url: string): Promise<GatewayClient> {
  // node-redis gives up on a command after 5 s by default; on a machine shared with other test runs an XADD
  // can wait longer, and a gateway that gave up would have to retry (a second entry, deduplicated later).
  const client = createClient({ url, commandOptions: { timeout: 60_000 } }) as GatewayClient;
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** The entry's fields as a gateway in any language would write them. */
export function entryFields(outcome: Outcome | Record<string, unknown>): string[] {
  const fields: string[] = [];
  for (const [name, value] of Object.entries(outcome)) {
    if (value === undefined) continue;
    if (name === 'dims' && typeof value === 'object' && value !== null) {
      for (const [dim, v] of Object.entries(value)) fields.push(`dims.${dim}`, String(v));
    } else fields.push(name, String(value));
  }
  return fields;
}

export async function xaddOutcome(client: GatewayClient, key: string, outcome: Outcome | Record<string, unknown>): Promise<string> {
  return String(await client.sendCommand(['XADD', key, '*', ...entryFields(outcome)]));
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** XPENDING summary count of a group. */
export async function pendingCount(client: GatewayClient, key: string, group: string): Promise<number> {
  const reply = (await client.sendCommand(['XPENDING', key, group])) as unknown[];
  return Number(reply[0]);
}

/** XRANGE of a stream as { id, fields as an object }. */
export async function streamEntries(client: GatewayClient, key: string): Promise<{ id: string; fields: Record<string, string> }[]> {
  const reply = (await client.sendCommand(['XRANGE', key, '-', '+'])) as [string, string[]][];
  return reply.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return { id, fields };
  });
}
