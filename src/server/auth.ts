// Bearer tokens. With a token set, every /v1 route needs it, reads included: failed request ids with decline
// codes, rates and history are business data. /healthz, /readyz, /docs and the dashboard's files stay open
// (the page asks for the token and sends it); /metrics needs its own token when one is set.
// The check is attached to each matched route (onRoute), never decided from the raw request URL: the router
// decodes `/%761/outcomes` and absolute-form targets (`POST http://x/v1/outcomes`) to a /v1 route that a
// string test on `request.url` does not recognise.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { sendError } from './httpErrors.js';
import { decodeQueryText, rawQueryParams } from './rawQuery.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also takes the token as `?token=` (the stream: a browser's EventSource cannot set headers). */
    tokenInQuery?: boolean;
  }
}

export interface Tokens {
  /** Guards every /v1 route. */
  token?: string;
  /** Guards /metrics. */
  metricsToken?: string;
}

// Hashing both sides gives equal-length buffers, so the comparison time says nothing about the token.
const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The one parameter spelled exactly `token=`: the parsed query would also hold `?%74oken=` under `token`,
 * a spelling the documentation never gave, which the log's redaction then had to guess. Given twice: none.
 */
function queryToken(url: string): string | undefined {
  const given = rawQueryParams(url).filter((p) => p.name === 'token');
  return given.length === 1 && given[0]!.value !== undefined ? decodeQueryText(given[0]!.value) : undefined;
}

function presented(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (match) return match[1];
  if (request.routeOptions.config.tokenInQuery) return queryToken(request.url);
  return undefined;
}

function tokenCheck(token: string): onRequestHookHandler {
  const expected = digest(token);
  return async function checkToken(request: FastifyRequest, reply: FastifyReply) {
    const given = presented(request);
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return;
    reply.header('www-authenticate', 'Bearer realm="paypulse"');
    return sendError(reply, 'PP_ERR_UNAUTHORIZED', given !== undefined ? 'wrong bearer token' : 'missing "Authorization: Bearer <token>"');
  } as onRequestHookHandler;
}

/** The route's OpenAPI entry shows the bearer scheme and the 401 it can answer. */
function documentBearer(route: RouteOptions): void {
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const response = (schema.response ?? {}) as Record<string, unknown>;
  route.schema = { ...schema, security: [{ bearer: [] }], response: { ...response, 401: { $ref: 'ErrorReply#' } } };
}

/** Must run before the routes are registered. */
export function requireTokens(app: FastifyInstance, tokens: Tokens): void {
  const apiCheck = tokens.token ? tokenCheck(tokens.token) : undefined;
  const metricsCheck = tokens.metricsToken ? tokenCheck(tokens.metricsToken) : undefined;
  app.addHook('onRoute', (route) => {
    const check = route.url.startsWith('/v1/') ? apiCheck : route.url === '/metrics' ? metricsCheck : undefined;
    if (!check) return;
    const own = route.onRequest ? ([] as onRequestHookHandler[]).concat(route.onRequest as onRequestHookHandler | onRequestHookHandler[]) : [];
    route.onRequest = [check, ...own];
    // HEAD routes Fastify adds for each GET reuse the GET's schema object: document it once.
    if (route.method !== 'HEAD') documentBearer(route);
  });
}
