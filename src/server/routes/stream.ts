// GET /v1/stream: server-sent events from the EventHub. Replays what a reconnecting client missed
// (Last-Event-ID), sends a comment every 15 s so idle proxies keep the connection, and drops a client that
// stops reading (its socket buffer past 1 MiB) rather than buffering without bound; that client reconnects
// with Last-Event-ID and catches up from the replay buffer.
import type { FastifyInstance } from 'fastify';
import type { EventHub, StreamEvent } from '../stream/eventHub.js';

const heartbeatMs = 15_000;
const maxUnsentBytes = 1024 * 1024;

export interface StreamRouteOptions {
  hub: EventHub;
  /** Called on every event write failure or slow-client drop, for metrics. */
  onDrop?: () => void;
}

export function registerStreamRoute(app: FastifyInstance, { hub, onDrop }: StreamRouteOptions): void {
  const open = new Set<() => void>();

  // preClose runs before the server stops accepting: without it a graceful shutdown would wait forever on
  // connections that by design never end.
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  app.get(
    '/v1/stream',
    {
      schema: {
        summary: 'Live events (server-sent events)',
        description:
          'Events: `rates` ({ asOf, rates: Rate[] }, every channel × every configured window, at least every second); ' +
          '`gap` ({ lastEventId, oldestId }) when a reconnecting client missed more than the replay buffer holds. ' +
          'Later issues add `alert` and `breaker`. Every event has an `id:`; reconnect with Last-Event-ID (or ?lastEventId=) to replay.',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { lastEventId: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } },
        },
        headers: { type: 'object', properties: { 'last-event-id': { type: 'string', pattern: '^\\d{0,15}$' } } },
        produces: ['text/event-stream'],
      },
    },
    (request, reply) => {
      const query = request.query as { lastEventId?: number };
      const header = request.headers['last-event-id'];
      const lastEventId = header ? Number(header) : query.lastEventId;

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // nginx buffers responses unless told not to; an event stream must pass through at once.
        'x-accel-buffering': 'no',
      });
      res.write('retry: 1000\n\n');

      let ended = false;
      const write = (event: StreamEvent) => {
        if (ended) return;
        if (res.writableLength > maxUnsentBytes) {
          onDrop?.();
          end();
          return;
        }
        res.write(event.frame);
      };

      if (lastEventId !== undefined) {
        const replay = hub.since(lastEventId);
        if (replay.gap) {
          const oldestId = replay.events[0]?.id ?? hub.lastId + 1;
          res.write(`event: gap\ndata: ${JSON.stringify({ lastEventId, oldestId })}\n\n`);
        }
        for (const event of replay.events) write(event);
      }
      const unsubscribe = hub.subscribe(write);
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
      heartbeat.unref();

      function end() {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(end);
        res.end();
      }
      open.add(end);
      request.raw.on('close', end);
      res.on('error', end);
    },
  );
}
