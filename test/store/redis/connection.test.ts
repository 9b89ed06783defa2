// Nothing waits for Redis to start: a connection to a port nobody listens on returns at once, fails each
// command at once, logs the wait once (not per retry), and is ready as soon as a server starts there.
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../src/errors.js';
import { freePort, startRedis, type LocalRedis } from '../../support/redisServer.js';
import { RedisConnection, RedisNotReadyError } from '../../../src/store/redis/connection.js';
import { describeTarget, parseRedisTarget } from '../../../src/store/redis/redisTarget.js';
import type { PulseLogger } from '../../../src/types.js';
import { eventually } from '../../kit/engines.js';

function recordingLogger(): PulseLogger & { lines: Array<{ level: string; msg: string }> } {
  const lines: Array<{ level: string; msg: string }> = [];
  const at = (level: string) => (_obj: object, msg: string) => void lines.push({ level, msg });
  return { lines, warn: at('warn'), error: at('error'), info: at('info') };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe('a Redis connection made before Redis runs', () => {
  it('returns at once, fails commands at once, and works once a server starts on the port', async () => {
    const port = await freePort();
    const logger = recordingLogger();
    let errors = 0;
    const connection = await RedisConnection.connect({ url: `redis://127.0.0.1:${port}`, logger, onError: () => errors++ });
    cleanups.push(() => connection.close());
    expect(connection.status.state).toBe('connecting');
    await expect(connection.command('k', ['PING'])).rejects.toBeInstanceOf(RedisNotReadyError);

    // A few refused attempts: every one counted, one log line for all of them.
    await eventually(() => errors >= 3, 10_000);
    const waiting = logger.lines.filter((l) => l.msg.includes(`waiting for Redis at redis://127.0.0.1:${port}`));
    expect(waiting).toHaveLength(1);
    expect(connection.describe()).toMatch(/^waiting for Redis at .* since .*ECONNREFUSED/);

    let redis: LocalRedis | undefined;
    cleanups.push(async () => redis?.stop());
    redis = await startRedis([], { port });
    await eventually(() => connection.isReady, 10_000);
    expect(await connection.command('k', ['PING'])).toBe('PONG');
    expect(connection.status.state).toBe('ready');
    expect(logger.lines.some((l) => l.level === 'info' && l.msg.includes('connected to Redis'))).toBe(true);

    // Lost after being ready: unreachable since then, logged once again, and back when the server is.
    await redis.kill();
    await eventually(() => connection.status.state === 'reconnecting', 10_000);
    await expect(connection.command('k', ['PING'])).rejects.toThrow();
    expect(connection.describe()).toMatch(/^Redis at .* unreachable since/);
    await redis.start();
    await eventually(() => connection.isReady, 10_000);
    expect(await connection.command('k', ['PING'])).toBe('PONG');
  }, 30_000);

  it('rejects within connectTimeoutMs when asked to fail fast', async () => {
    const port = await freePort();
    const attempt = RedisConnection.connect({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300 });
    await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(attempt).rejects.toThrow(/waiting for Redis at redis:\/\/127\.0\.0\.1:\d+ .*connectTimeoutMs 300/);
  });

  it('waits for a server that is up within connectTimeoutMs', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const connection = await RedisConnection.connect({ url: redis.url, connectTimeoutMs: 5_000 });
    cleanups.push(() => connection.close());
    expect(connection.isReady).toBe(true);
  });

  it('keeps a Redis Cluster client trying until its nodes answer', async () => {
    const ports = [await freePort(), await freePort()];
    const logger = recordingLogger();
    const connection = await RedisConnection.connect({ url: ports.map((p) => `redis://127.0.0.1:${p}`).join(','), logger });
    cleanups.push(() => connection.close());
    await expect(connection.command('k', ['PING'])).rejects.toBeInstanceOf(RedisNotReadyError);
    await eventually(() => logger.lines.length > 0, 10_000);
    expect(logger.lines[0].msg).toContain('waiting for Redis at');
    expect(connection.isCluster).toBe(true);
  });
});

describe('redis targets', () => {
  it('reads one server, a cluster and a Sentinel URL, and hides passwords in what it shows', () => {
    expect(parseRedisTarget('redis://h:7001')).toEqual({ kind: 'standalone', url: 'redis://h:7001' });
    expect(parseRedisTarget('redis://a:1, redis://b:2')).toEqual({ kind: 'cluster', urls: ['redis://a:1', 'redis://b:2'] });
    expect(parseRedisTarget('redis://a:1', true)).toEqual({ kind: 'cluster', urls: ['redis://a:1'] });
    expect(parseRedisTarget('redis+sentinel://:s3cret@h1:26379,h2,[::1]:26381/mymaster/2')).toEqual({
      kind: 'sentinel',
      primaryName: 'mymaster',
      sentinels: [{ host: 'h1', port: 26379 }, { host: 'h2', port: 26379 }, { host: '::1', port: 26381 }],
      password: 's3cret',
      database: 2,
    });
    expect(describeTarget(parseRedisTarget('redis://user:pw@h:7001'))).toBe('redis://user:***@h:7001');
    expect(describeTarget(parseRedisTarget('redis+sentinel://u:pw@h1:1,h2:2/m'))).toBe('redis+sentinel://h1:1,h2:2/m');
  });

  it('names what is wrong with a Sentinel URL', () => {
    expect(() => parseRedisTarget('redis+sentinel://h1:26379')).toThrow(/names the primary/);
    expect(() => parseRedisTarget('redis+sentinel:///mymaster')).toThrow(/at least one Sentinel host/);
    expect(() => parseRedisTarget('redis+sentinel://h1:99999/m')).toThrow(/port out of range/);
    expect(() => parseRedisTarget('redis+sentinel://h1/m/x')).toThrow(/database must be a number/);
  });
});
