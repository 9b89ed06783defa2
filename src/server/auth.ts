// Bearer-token check for /v1 writes. Reads stay open (dashboards, probes); writes change what routing sees.
// The check is attached to each matched route (onRoute), never decided from the raw request URL: the router
// decodes `/%761/outcomes` and absolute-form targets (`POST http://x/v1/outcomes`) to a /v1 route that a
// string test on `request.url` does not recognise.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { sendError } from './httpErrors.js';

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

// Hashing both sides gives equal-length buffers, so the comparison time says nothing about the token.
const digest = (value: string) => createHash('sha256').update(value).digest();

function isWrite(method: string | string[]): boolean {
  return (Array.isArray(method) ? method : [method]).some((m) => !readMethods.has(m.toUpperCase()));
}

/** Must run before the routes are registered: it guards every /v1 route that takes a write method. */
export function requireTokenForWrites(app: FastifyInstance, token: string): void {
  const expected = digest(token);
  const checkToken = async (request: FastifyRequest, reply: FastifyReply) => {
    if (readMethods.has(request.method)) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (match && timingSafeEqual(digest(match[1]!), expected)) return;
    reply.header('www-authenticate', 'Bearer realm="paypulse"');
    return sendError(reply, 'PP_ERR_UNAUTHORIZED', header ? 'wrong bearer token' : 'missing "Authorization: Bearer <token>"');
  };
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/') || !isWrite(route.method)) return;
    const own = route.onRequest ? ([] as onRequestHookHandler[]).concat(route.onRequest as onRequestHookHandler | onRequestHookHandler[]) : [];
    route.onRequest = [checkToken as onRequestHookHandler, ...own];
  });
}
