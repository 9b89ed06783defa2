// The stream lane of `bench:http`: the outcome stream filled first with the same unique outcomes the HTTP lane
// posts, then a service started with the consumer on; its rate is the entries acknowledged per second from
// the moment it serves until the group has none left, read from XINFO GROUPS (what was recorded and acked).
import { connectGateway, type GatewayClient } from '../../test/ingest/streamGateway.js';
import { outcomeStreamKey } from '../../src/store/keys/ingestStream.js';
import { fieldMap } from '../../src/ingest/stream/streamReplies.js';
import type { RedisReply } from '../../src/store/redis/connection.js';

export interface StreamLaneOptions {
  redisUrl: string;
  namespace: string;
  entries: number;
  channels: string[];
  /** Starts the service (consumer on) and returns its stop. */
  startService(): Promise<() => Promise<void>>;
}

/** Acknowledged entries of the group: delivered (entries-read) less pending. */
async function acknowledged(client: GatewayClient, key: string): Promise<number> {
  const info = (await client.sendCommand(['XINFO', 'GROUPS', key])) as unknown as RedisReply;
  const group = (Array.isArray(info) ? info : []).map(fieldMap).find((g) => g.get('name') === 'paypulse');
  return group ? Number(group.get('entries-read') ?? 0) - Number(group.get('pending') ?? 0) : 0;
}

export async function streamIngest(options: StreamLaneOptions): Promise<{ outcomesPerSec: number; seconds: number }> {
  const client = await connectGateway(options.redisUrl);
  const key = outcomeStreamKey(options.namespace, 0);
  try {
    const now = Date.now();
    for (let sent = 0; sent < options.entries; ) {
      const sends: Promise<unknown>[] = [];
      for (const end = Math.min(options.entries, sent + 5_000); sent < end; sent++) {
        const status = (sent * 7919) % 100 < 3 ? 'failure' : 'success';
        sends.push(client.sendCommand(['XADD', key, '*', 'channel', options.channels[sent % options.channels.length]!, 'requestId', `s${sent}`, 'status', status, 'at', String(now - ((sent * 53) % 30_000))]));
      }
      await Promise.all(sends);
    }
    const stop = await options.startService();
    try {
      const started = process.hrtime.bigint();
      const first = await acknowledged(client, key).catch(() => 0);
      while ((await acknowledged(client, key)) < options.entries) await new Promise((r) => setTimeout(r, 100));
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      return { outcomesPerSec: (options.entries - first) / seconds, seconds };
    } finally {
      await stop();
    }
  } finally {
    await client.close();
  }
}
