// Opens stream ingestion for the service: a Redis connection of its own (the group read blocks, and must
// not hold up the payment path's commands on the shared one) and the consumer on it.
import { RedisConnection } from '../../store/redis/connection.js';
import type { PulseLogger } from '../../types.js';
import type { BatchRecorder } from './entryBatch.js';
import { startStreamConsumer, type StreamConsumer } from './streamConsumer.js';
import { defaultConsumerName, type StreamSettings } from './streamSettings.js';

export interface StreamIngestOptions {
  redisUrl: string;
  namespace: string;
  settings: StreamSettings;
  recorder: BatchRecorder;
  /** With a data folder, outcomes the store could not take are fsync'd to the spill journal: safe to acknowledge. */
  dataDir?: string;
  logger?: PulseLogger;
}

export interface StreamIngest {
  consumer: StreamConsumer;
  /** Stops reading after the batch in hand, then closes the connection. */
  close(): Promise<void>;
}

export async function openStreamIngest(options: StreamIngestOptions): Promise<StreamIngest> {
  // Like the pulse's own connection it returns at once whatever Redis's state: the consumer waits and retries.
  const redis = await RedisConnection.connect({ url: options.redisUrl, commandTimeoutMs: 2_000, logger: options.logger });
  const consumer = startStreamConsumer({
    redis,
    recorder: options.recorder,
    namespace: options.namespace,
    settings: { ...options.settings, consumer: options.settings.consumer ?? defaultConsumerName() },
    spillIsDurable: Boolean(options.dataDir),
    logger: options.logger,
  });
  let closing: Promise<void> | undefined;
  return {
    consumer,
    close: () =>
      (closing ??= (async () => {
        await consumer.stop();
        await redis.close();
      })()),
  };
}
