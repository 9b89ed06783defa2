// Bounds on what one client can hold open: request, header, idle and keep-alive timeouts, a cap on open
// connections, and a cap on unanswered pipelined requests per connection. Without them 20,000 sockets
// trickling a body took every file descriptor (docs/configuration.md, "Connections and limits").
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyInstance } from 'fastify';
import { errorCodes, type ErrorCode } from '../errors.js';
import type { ServiceConfig } from './config.js';

export type ConnectionLimits = Pick<
  ServiceConfig,
  'requestTimeoutMs' | 'headersTimeoutMs' | 'idleTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections' | 'maxPipelinedRequests'
>;

/** Why a connection was closed by a limit, for the metric. */
export type RefusalReason = 'max_connections' | 'pipelining';

function rawErrorReply(code: ErrorCode, message: string): string {
  const { status } = errorCodes[code];
  const body = JSON.stringify({ error: { code, message } });
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status as 400 | 408 | 431];
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Errors Node raises before a request reaches Fastify (timeouts, unparsable HTTP) answered in the service's
 * error format. Fastify's default answers `{ error: "Request Timeout", statusCode: 408 }`.
 */
function clientErrorReply(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const pending = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  // Once a response has begun on this socket, a second status line would corrupt it: just close.
  if (socket.writable && !pending?.headersSent) {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.write(rawErrorReply('PP_ERR_REQUEST_TIMEOUT', 'the request was not received in time'));
    else if (err.code === 'HPE_HEADER_OVERFLOW') socket.write(rawErrorReply('PP_ERR_HEADERS_TOO_LARGE', 'request headers over the size limit'));
    else socket.write(rawErrorReply('PP_ERR_VALIDATION', 'malformed HTTP request'));
  }
  this.log.debug({ err }, 'client error');
  socket.destroy();
}

/** The Fastify constructor options that carry the limits. */
export function connectionOptions(limits: ConnectionLimits): FastifyHttpOptions<Server> {
  const { requestTimeoutMs, headersTimeoutMs } = limits;
  return {
    requestTimeout: requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the request and header deadlines on this interval (30 s by default, which would let a
    // 10 s header deadline run to 40 s).
    http: { requestTimeout: requestTimeoutMs, headersTimeout: headersTimeoutMs, connectionsCheckingInterval: Math.max(50, Math.min(1_000, headersTimeoutMs / 4)) },
    clientErrorHandler: clientErrorReply,
  };
}

/**
 * The connection cap, and the cap on unanswered requests per connection. A client pipelining 2,000 requests
 * and reading none makes Node parse a whole TCP read of them at once and queue every answer in memory
 * (2,000 × the OpenAPI document: 750 MB for 20 such sockets); past the cap the connection is closed instead.
 */
export function limitConnections(app: FastifyInstance, limits: ConnectionLimits, onRefused: (reason: RefusalReason) => void): void {
  app.server.maxConnections = limits.maxConnections;
  app.server.on('drop', () => onRefused('max_connections'));
  const unanswered = new WeakMap<Socket, number>();
  const settle = (raw: IncomingMessage) => {
    const count = unanswered.get(raw.socket);
    if (count !== undefined) unanswered.set(raw.socket, count - 1);
  };
  // Requests reach this hook before any handler runs, but Node parses a whole TCP read at once: the
  // requests after the one that crossed the cap still arrive, on the socket already destroyed. They are
  // dropped here, unanswered and uncounted, so one refused connection counts once and costs no handler.
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket;
    if (socket.destroyed) {
      reply.hijack();
      return;
    }
    const count = (unanswered.get(socket) ?? 0) + 1;
    unanswered.set(socket, count);
    if (count > limits.maxPipelinedRequests) {
      onRefused('pipelining');
      socket.destroy();
      reply.hijack();
      return;
    }
    done();
  });
  app.addHook('onResponse', (request, _reply, done) => {
    settle(request.raw);
    done();
  });
}
