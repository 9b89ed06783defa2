// Accepts `Content-Encoding: gzip` request bodies. A 10,000-outcome batch is ~1.5 MB of JSON and ~10× smaller
// gzipped, which matters to gateways posting from another data centre. The body limit applies to the
// inflated bytes (Fastify counts what this stream yields), so a zip bomb is refused with 413 at the limit;
// the gunzip is then destroyed, because Fastify only stops listening and the inflation would otherwise run
// on to the bomb's full size, burning CPU for a request that has already been answered.
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { PayPulseError } from '../errors.js';

/** What Fastify reads from a preParsing stream: the bytes that came off the wire. */
type CountedStream = Transform & { receivedEncodedLength: number };

/** Passes inflated bytes on until one chunk takes them past `limitBytes`, then stops the inflation. */
function limitedInflation(wire: Readable, gunzip: Gunzip, limitBytes: number): CountedStream {
  let inflatedBytes = 0;
  let stopped = false;
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      if (stopped) return callback();
      inflatedBytes += chunk.length;
      // This chunk still goes out: it is what makes Fastify answer 413.
      callback(null, chunk);
      if (inflatedBytes <= limitBytes) return;
      stopped = true;
      limited.push(null);
      wire.unpipe(gunzip);
      gunzip.destroy();
      // The rest of the compressed body is read and discarded, so the connection can carry the 413.
      wire.resume();
    },
  }) as CountedStream;
  limited.receivedEncodedLength = 0;
  wire.on('data', (chunk: Buffer) => {
    limited.receivedEncodedLength += chunk.length;
  });
  return limited;
}

export function acceptGzipBodies(app: FastifyInstance, bodyLimitBytes: number): void {
  // Callback style, not async: every request passes here, most with no body, and a promise each is waste.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (!encoding || encoding === 'identity') return done(null, payload);
    if (encoding !== 'gzip') {
      return done(new PayPulseError('PP_ERR_UNSUPPORTED_MEDIA_TYPE', `content-encoding ${encoding} is not supported; send gzip or identity`));
    }
    const gunzip = createGunzip();
    const limited = limitedInflation(payload, gunzip, bodyLimitBytes);
    payload.on('error', (err) => gunzip.destroy(err));
    gunzip.on('error', (err) => limited.destroy(err));
    done(null, payload.pipe(gunzip).pipe(limited));
  });
}
