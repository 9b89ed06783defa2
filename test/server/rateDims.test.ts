// `dims=` of a rate query passes the same check as an outcome's dims: a value an outcome could never carry
// (a space, a newline, a brace) is a 400 naming the field, never a Rate echoing it back; a name given twice is
// a 400 too, where it used to keep the last value silently. Over a socket, as a client sends it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, outcome, post, type TestApp } from './harness.js';

const engine = engines[0]!;

describe('rate dims are checked like outcome dims', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await makeApp(engine, { pulse: { dimensions: [['method'], ['currency', 'method']] } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    expect((await post(t.app, outcome(t.clock, { channel: 'alipay', dims: { method: 'card', currency: 'EUR' } }))).statusCode).toBe(200);
  });
  afterAll(async () => t?.close());

  const rate = (dims: string) => fetch(`${base}/v1/channels/alipay/rate?dims=${dims}`);

  it.each(['method:a%20b', 'method:a%0Ab', 'method:%7Bx%7D', 'method:a%00', `method:${'x'.repeat(65)}`])(
    'dims=%s is a 400 naming querystring.dims, as the same value in an outcome is',
    async (dims) => {
      const res = await rate(dims);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; details: { field: string; reason: string }[] } };
      expect(body.error.code).toBe('PP_ERR_VALIDATION');
      expect(body.error.details[0]!.field).toBe('querystring.dims');
      expect(body.error.details[0]!.reason).toMatch(/^dims\.\w+ /);
      const value = decodeURIComponent(dims).split(',')[0]!.slice('method:'.length);
      const asOutcome = await post(t.app, outcome(t.clock, { channel: 'alipay', dims: { method: value } }));
      expect(asOutcome.statusCode).toBe(400);
    },
  );

  it('a name given twice is a 400 naming it, not the last value', async () => {
    const res = await rate('method:card,method:wallet');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { field: string; reason: string }[] } };
    expect(body.error.details).toEqual([{ index: 0, field: 'querystring.dims', reason: 'dims.method is given more than once' }]);
  });

  it('a value an outcome may carry is answered', async () => {
    const res = await rate('method:card');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { dims: unknown; total: number })).toMatchObject({ dims: { method: 'card' }, total: 1 });
    const both = await rate('currency:EUR,method:card');
    expect(both.status).toBe(200);
  });
});
