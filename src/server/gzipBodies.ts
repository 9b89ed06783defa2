// Accepts `Content-Encoding: gzip` request bodies. A 10,000-outcome batch is ~1.5 MB of JSON and ~10× smaller
// gzipped, which matters to gateways posting from another data centre. The 5 MB body limit applies to the
// inflated bytes (Fastify counts what this stream yields), so a zip bomb stops at 5 MB.
import { createGunzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { PayPulseError } from '../errors.js';

export function acceptGzipBodies(app: FastifyInstance): void {
  // Callback style, not async: every request passes here, most with no body, and a promise each is waste.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (!encoding || encoding === 'identity') return done(null, payload);
    if (encoding !== 'gzip') {
      return done(new PayPulseError('PP_ERR_UNSUPPORTED_MEDIA_TYPE', `content-encoding ${encoding} is not supported; send gzip or identity`));
    }
    const inflated = createGunzip() as ReturnType<typeof createGunzip> & { receivedEncodedLength: number };
    // Fastify compares Content-Length with the bytes on the wire, which this counter reports.
    inflated.receivedEncodedLength = 0;
    payload.on('data', (chunk: Buffer) => {
      inflated.receivedEncodedLength += chunk.length;
    });
    payload.on('error', (err) => inflated.destroy(err));
    done(null, payload.pipe(inflated));
  });
}
