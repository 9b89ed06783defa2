// GET /v1/stream: server-sent events from the EventHub. Replays what a reconnecting client missed
// (Last-Event-ID), sends a comment every 15 s so idle proxies keep the connection, and holds back events
// from a client that stops reading (BackPressuredWriter): a few hundred kB buffered at most, caught up from
// the replay buffer when it reads again, disconnected if it does not within the grace period; that client
// reconnects with Last-Event-ID and catches up from the replay buffer.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError } from '../httpErrors.js';
import { BackPressuredWriter } from '../stream/backPressure.js';
import type { EventHub } from '../stream/eventHub.js';
import { OpensPerAddress } from '../stream/opensPerAddress.js';

const heartbeatMs = 15_000;

export interface StreamRouteOptions {
  hub: EventHub;
  /** Called on every event write failure or slow-client drop, for metrics. */
  onDrop?: () => void;
  /** Concurrent streams one client address may hold; a stream is a socket for hours, so they add up. */
  maxStreamsPerIp?: number;
  /** Unsent bytes per client past which events are held back. */
  maxBufferedBytes?: number;
  /** How long a client may leave events unread before it is disconnected. */
  stallGraceMs?: number;
  /** Bytes of events one reconnect may replay (the newest that fit). */
  replayMaxBytes?: number;
  /** Streams one client address may open a minute; past it 429 with Retry-After. */
  opensPerMinute?: number;
  /** The service's clock, for the opens a minute. */
  now?: () => number;
}

/** Open streams per client address; an address leaves the map with its last stream. */
class StreamsPerAddress {
  private readonly open = new Map<string, number>();
  constructor(private readonly max: number) {}

  /** false: the address is at its limit. */
  take(address: string): boolean {
    const count = this.open.get(address) ?? 0;
    if (count >= this.max) return false;
    this.open.set(address, count + 1);
    return true;
  }

  release(address: string): void {
    const count = (this.open.get(address) ?? 1) - 1;
    if (count <= 0) this.open.delete(address);
    else this.open.set(address, count);
  }
}

const streamSchema = {
  summary: 'Live events (server-sent events)',
  description:
    'Events: `rates` ({ asOf, rates: Rate[], channels, truncated, summary? }, at least every second): every configured window ' +
    'of every channel, worst channel first; past `pageChannels` channels only the worst `streamPageChannels` (25 by default), `truncated: true` and ' +
    '`summary` (every channel by state; search the rest with GET /v1/channels); ' +
    '`gap` ({ lastEventId, oldestId }) when a reconnecting client missed more than the replay buffer holds, or more than one replay sends (`streamReplayMaxBytes`, the newest events that fit); ' +
    'one client address may open `streamOpensPerMinute` streams a minute, past it 429 `PP_ERR_STREAM_RECONNECTS` with Retry-After; ' +
    '`store` ({ reachable: false, since, reason } or { reachable: true, asOf }) when the store stops or starts answering the snapshot. ' +
    '`alert` on each alert transition, `breaker` on each breaker change. Every event has an `id:`; reconnect with Last-Event-ID (or ?lastEventId=) to replay.',
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      lastEventId: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      token: { type: 'string', maxLength: 512, description: 'the bearer token, for clients that cannot set headers (EventSource)' },
    },
  },
  headers: { type: 'object', properties: { 'last-event-id': { type: 'string', pattern: '^\\d{0,15}$' } } },
  produces: ['text/event-stream'],
};

/** 429 with Retry-After when the address must wait `waitMs` before opening another stream; true when refused. */
function refuseOpen(reply: FastifyReply, waitMs: number, opensPerMinute: number): boolean {
  if (waitMs <= 0) return false;
  const retryAfterSec = Math.ceil(waitMs / 1000);
  reply.header('retry-after', String(retryAfterSec));
  sendError(reply, 'PP_ERR_STREAM_RECONNECTS', `this address opened ${opensPerMinute} streams within a minute; retry after ${retryAfterSec} s`);
  return true;
}

/** Takes the response over from Fastify and writes the event stream's head. */
function startEventStream(reply: FastifyReply): FastifyReply['raw'] {
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx buffers responses unless told not to; an event stream must pass through at once.
    'x-accel-buffering': 'no',
  });
  res.write('retry: 1000\n\n');
  return res;
}

export function registerStreamRoute(app: FastifyInstance, options: StreamRouteOptions): void {
  const { hub, onDrop, maxStreamsPerIp = 20, maxBufferedBytes = 256 * 1024, stallGraceMs = 10_000, replayMaxBytes = 1024 * 1024, opensPerMinute = 60 } = options;
  const open = new Set<() => void>();
  const perAddress = new StreamsPerAddress(maxStreamsPerIp);
  const opens = new OpensPerAddress(opensPerMinute, options.now ?? Date.now);

  // preClose runs before the server stops accepting: without it a graceful shutdown would wait forever on
  // connections that by design never end.
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  app.get(
    '/v1/stream',
    {
      schema: streamSchema,
      config: { tokenInQuery: true },
    },
    (request, reply) => {
      const query = request.query as { lastEventId?: number };
      const header = request.headers['last-event-id'];
      const lastEventId = header ? Number(header) : query.lastEventId;
      const address = request.ip;
      if (refuseOpen(reply, opens.take(address), opensPerMinute)) return;
      if (!perAddress.take(address)) {
        sendError(reply, 'PP_ERR_TOO_MANY_STREAMS', `this address already holds ${maxStreamsPerIp} open streams; close one first`);
        return;
      }

      reply.hijack();
      const res = startEventStream(reply);

      let ended = false;
      const replay = lastEventId === undefined ? { events: [], gap: false } : hub.since(lastEventId, replayMaxBytes);
      const writer = new BackPressuredWriter({
        hub,
        res,
        maxBufferedBytes,
        stallGraceMs,
        lastSentId: replay.events.length > 0 ? replay.events[0]!.id - 1 : hub.lastId,
        onStalledTooLong: () => {
          onDrop?.();
          end();
          // Ending would wait for the unread bytes to drain, which this client will not do.
          res.destroy();
        },
      });
      if (replay.gap) {
        const oldestId = replay.events[0]?.id ?? hub.lastId + 1;
        writer.writeSmall(`event: gap\ndata: ${JSON.stringify({ lastEventId, oldestId })}\n\n`);
      }
      for (const event of replay.events) writer.send(event);
      const unsubscribe = hub.subscribe(writer.send);
      const heartbeat = setInterval(() => writer.writeSmall(': keep-alive\n\n'), heartbeatMs);
      heartbeat.unref();

      function end() {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        writer.close();
        unsubscribe();
        open.delete(end);
        perAddress.release(address);
        res.end();
      }
      open.add(end);
      request.raw.on('close', end);
      res.on('error', end);
    },
  );
}
