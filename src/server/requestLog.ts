// What a log line says about a request, in one place. A stream URL may carry the token in its query string,
// and a client may spell the parameter's name with percent-escapes (`?%74oken=`, even double-escaped), so
// every parameter whose name, decoded as far as it goes, mentions a token has its value replaced.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeQueryText, rawQueryParams } from './rawQuery.js';

const secretName = /token/i;
/** Decoding rounds for a name escaped more than once; each round removes one layer of `%25`. */
const maxDecodings = 4;

function decodedName(name: string): string {
  let current = name;
  for (let i = 0; i < maxDecodings; i++) {
    const next = decodeQueryText(current);
    if (next === undefined || next === current) break;
    current = next;
  }
  return current;
}

/** The URL with the value of every token-like query parameter replaced by `[redacted]`. */
export function redactedUrl(url: string): string {
  const params = rawQueryParams(url);
  if (params.length === 0) return url;
  const shown = params.map(({ name, value }) => (secretName.test(decodedName(name)) ? `${name}=[redacted]` : value === undefined ? name : `${name}=${value}`));
  return `${url.slice(0, url.indexOf('?'))}?${shown.join('&')}`;
}

/** The line of a request that failed (4xx or 5xx). */
export function failedRequestLine(request: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  return { method: request.method, url: redactedUrl(request.url), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) };
}

/** pino serializers for the request logger: a line Fastify itself writes with `req` gets the same redaction. */
export const requestLogSerializers = {
  req: (request: { method?: string; url?: string; id?: string }) => ({ method: request.method, url: request.url === undefined ? undefined : redactedUrl(request.url), reqId: request.id }),
};
