// The `stream` section of the service configuration (docs/configuration.md, "Stream ingestion"). Present,
// even empty, it turns the consumer on; every field has a default.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

export const streamSettingsSchema = z.strictObject({
  /** Outcome streams `<namespace>:{outcomes:0}` … `{outcomes:<shards-1>}`; more than one spreads them over a cluster. */
  shards: z.number().int().min(1).max(256).default(1),
  /** The consumer group every instance of the fleet joins. */
  group: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 . _ : -').default('paypulse'),
  /** This instance's name in the group; unset: host, pid and a random suffix, unique per process. */
  consumer: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 of A-Z a-z 0-9 . _ : -').optional(),
  /** Entries read, recorded and acknowledged together. */
  batchSize: z.number().int().min(1).max(10_000).default(500),
  /** Batches recorded at once by this instance, as a gateway keeps several POSTs in flight. */
  concurrentBatches: z.number().int().min(1).max(32).default(4),
  /** How long one read waits for new entries when a stream is empty. */
  blockMs: z.number().int().min(10).max(30_000).default(1_000),
  /** An entry pending this long with another consumer is taken over (XAUTOCLAIM): that consumer is presumed dead. */
  claimIdleMs: z.number().int().min(1_000).default(30_000),
  /** How often pending entries of dead consumers are looked for. */
  claimIntervalMs: z.number().int().min(100).default(5_000),
  /** How often the streams are trimmed below what every group acknowledged, and lag and pending are read. */
  trimIntervalMs: z.number().int().min(100).default(5_000),
  /** Dead-letter streams are trimmed to about this many entries each. */
  deadLetterMaxLen: z.number().int().min(1).default(100_000),
  /** A consumer with nothing pending and silent this long is removed from the group (restarts add new names). */
  staleConsumerMs: z.number().int().min(60_000).default(3_600_000),
});

export type StreamSettings = z.infer<typeof streamSettingsSchema>;

/** Unique per process: two instances on one host, or a restart, never share a consumer name. */
export function defaultConsumerName(): string {
  return `${hostname().replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 64)}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
