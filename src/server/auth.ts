// Bearer-token check for /v1 writes. Reads stay open (dashboards, probes); writes change what routing sees.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sendError } from './httpErrors.js';

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

// Hashing both sides gives equal-length buffers, so the comparison time says nothing about the token.
const digest = (value: string) => createHash('sha256').update(value).digest();

export function requireTokenForWrites(app: FastifyInstance, token: string): void {
  const expected = digest(token);
  app.addHook('onRequest', async (request, reply) => {
    if (readMethods.has(request.method) || !request.url.startsWith('/v1/')) return;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (match && timingSafeEqual(digest(match[1]!), expected)) return;
    reply.header('www-authenticate', 'Bearer realm="paypulse"');
    return sendError(reply, 'PP_ERR_UNAUTHORIZED', header ? 'wrong bearer token' : 'missing "Authorization: Bearer <token>"');
  });
}
