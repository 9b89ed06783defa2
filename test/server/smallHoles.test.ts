// The small holes of a hostile run: out-of-range and unsafe numbers, `__proto__` in a query or a body, a
// gzip bomb that kept inflating after its 413, /docs disagreeing with the service about `n`, and /readyz
// logging every 503 at error level.
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptGzipBodies } from '../../src/server/gzipBodies.js';
import { installErrorHandlers } from '../../src/server/httpErrors.js';
import { capturingLogger, engines, makeApp, outcome, post, type TestApp } from './harness.js';

const engine = engines[0]!;

describe('small holes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeApp(engine);
  });
  afterAll(async () => t?.close());

  it.each([
    ['from=1e17&to=1e17', 'querystring.to'],
    ['from=100000000000000000&to=100000000000000000', 'querystring.to'],
    ['to=253402300800000', 'querystring.to'],
    ['from=99999999999999999999', 'querystring.from'],
    ['from=%2B275760-09-13T00:00:00.000Z', 'querystring.from'],
  ])('history?%s is a 400 naming %s, not a 500', async (query, field) => {
    const res = await t.app.inject({ url: `/v1/channels/alipay/history?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('PP_ERR_VALIDATION');
    expect(res.json().error.details[0].field).toBe(field);
  });

  it('history at the edges of the accepted range still answers', async () => {
    const res = await t.app.inject({ url: '/v1/channels/alipay/history?from=253402300000000&to=253402300799999' });
    expect(res.statusCode).toBe(200);
    expect(res.json().minutes).toEqual([]);
  });

  it('an outcome time past 2^53 is refused, not rounded to a neighbour', async () => {
    const body = `{"channel":"exact","requestId":"r1","status":"success","at":9007199254740993}`;
    const res = await t.app.inject({ method: 'POST', url: '/v1/outcomes', payload: body, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([expect.objectContaining({ index: 0, field: 'at' })]);
    const stream = await t.app.inject({ url: '/v1/stream?lastEventId=99999999999999999999' });
    expect(stream.statusCode).toBe(400);
  });

  it('/docs gives the same largest n as the service', async () => {
    expect((await post(t.app, outcome(t.clock, { channel: 'alipay' }))).statusCode).toBe(200);
    const spec = (await t.app.inject({ url: '/docs/json' })).json();
    const n = spec.paths['/v1/channels/{channel}/rate'].get.parameters.find((p: { name: string }) => p.name === 'n');
    const max = n.schema.maximum as number;
    expect((await t.app.inject({ url: `/v1/channels/alipay/rate?n=${max}` })).statusCode).toBe(200);
    const over = await t.app.inject({ url: `/v1/channels/alipay/rate?n=${max + 1}` });
    expect(over.statusCode).toBe(400);
    expect(over.json().error.details[0].field).toBe('querystring.n');
  });

  it.each(['__proto__:x', '_x:1', 'method:card,__proto__:x'])('dims=%s is a 400 naming the dims', async (dims) => {
    const res = await t.app.inject({ url: `/v1/channels/alipay/rate?dims=${encodeURIComponent(dims)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].field).toBe('querystring.dims');
  });

  it.each([
    ['{"channel":"a","requestId":"r","status":"success","at":1,"__proto__":{"x":1}}', -1, '__proto__'],
    ['{"outcomes":[{"channel":"a","requestId":"r","status":"success","at":1},{"channel":"a","requestId":"s","status":"success","at":1,"dims":{"__proto__":{"x":1}}}]}', 1, 'dims.__proto__'],
    ['{"channel":"a","requestId":"r","status":"success","at":1,"\\u005f_proto__":{"x":1}}', -1, '__proto__'],
    ['{"channel":"a","requestId":"r","status":"success","at":1,"constructor":{"prototype":{"x":1}}}', -1, 'constructor.prototype'],
  ])('a body with %s is a 400 that names the field, not "not valid JSON"', async (body, index, field) => {
    const res = await post(t.app, body, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([expect.objectContaining({ index, field })]);
    expect(res.json().error.message).not.toMatch(/not valid JSON/);
  });

  it('broken JSON is still a 400 that says so', async () => {
    const res = await post(t.app, '{"channel": ', { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/not valid JSON/);
  });
});

describe('a gzip body past the limit', () => {
  it('stops inflating once the 413 is decided', async () => {
    const limitBytes = 64 * 1024;
    const app = Fastify({ bodyLimit: limitBytes });
    installErrorHandlers(app);
    acceptGzipBodies(app, limitBytes);
    // The stream the JSON parser reads from: what the gzip hook handed on.
    let inflated: Readable | undefined;
    let inflatedBytes = 0;
    app.addHook('preParsing', (_request, _reply, payload, done) => {
      inflated = payload;
      payload.on('data', (chunk: Buffer) => (inflatedBytes += chunk.length));
      done(null, payload);
    });
    app.post('/', async () => ({ ok: true }));
    try {
      // 64 MB of zeros in ~64 kB: the 413 comes at 64 kB; the other 63.9 MB must not be inflated.
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, '0'));
      const res = await app.inject({ method: 'POST', url: '/', payload: bomb, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
      expect(res.statusCode).toBe(413);
      expect(res.json().error.code).toBe('PP_ERR_PAYLOAD_TOO_LARGE');
      if (!inflated!.readableEnded) await once(inflated!, 'end');
      expect(inflatedBytes).toBeLessThan(1024 * 1024);
    } finally {
      await app.close();
    }
  });
});

describe('readiness logs', () => {
  it('logs a change of readiness once, at warn, not every 503 at error', async () => {
    const { logger, lines } = capturingLogger();
    const t = await makeApp(engine, { logger });
    try {
      expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      t.app.paypulse.shuttingDown = true;
      for (let i = 0; i < 3; i++) expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(503);
      t.app.paypulse.shuttingDown = false;
      expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      const about = lines.filter((l) => l.level >= 40);
      expect(about.map((l) => [l.level, l.msg])).toEqual([[40, 'not ready']]);
      expect(lines.some((l) => l.msg === 'ready again')).toBe(true);
    } finally {
      await t.close();
    }
  });
});
