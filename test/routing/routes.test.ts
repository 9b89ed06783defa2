// The routing API over a real socket: the override is a write and needs the token, bad input is a 400 naming
// the field, and a forced breaker shows in the next decision.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBreaker } from '../../src/cli/breaker.js';
import { requireTokens } from '../../src/server/auth.js';
import { installErrorHandlers } from '../../src/server/httpErrors.js';
import { registerRoutingRoutes } from '../../src/server/routes/routing.js';
import { sharedSchemas } from '../../src/server/schemas.js';
import { createRegistry } from '../../src/server/metrics/registry.js';
import { registerRoutingMetrics } from '../../src/server/metrics/routingMetrics.js';
import { createStack, outcomes, type Stack } from './stack.js';

const token = 'route-secret';
let app: FastifyInstance;
let stack: Stack;
let base: string;

beforeAll(async () => {
  stack = createStack({ scoring: 'mean', exploration: 0 });
  const now = stack.clock.now();
  await stack.record([...outcomes('alipay', 90, 10, now), ...outcomes('bank-x', 80, 20, now)]);
  await stack.routing.refresh();
  app = Fastify({ logger: false });
  installErrorHandlers(app);
  requireTokens(app, { token });
  for (const schema of sharedSchemas) app.addSchema(schema);
  registerRoutingRoutes(app, stack.routing);
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app?.close();
  await stack?.close();
});

const send = (method: string, path: string, body?: unknown, auth = true) =>
  fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('routing API over a socket', () => {
  it('routes a payment and names a bad field', async () => {
    const ok = await send('POST', '/v1/route', { candidates: ['bank-x', 'alipay'], amount: 12.5, requestId: 'r-1' });
    expect(ok.status).toBe(200);
    const decision = await ok.json();
    expect(decision).toMatchObject({ channel: 'alipay', failOpen: false, stale: false, reason: 'best' });
    const registry = createRegistry();
    registerRoutingMetrics(registry, stack.routing);
    expect(await registry.metrics()).toContain('paypulse_route_decisions_total{channel="alipay",reason="best"} 1');
    expect(decision.ranked.map((r: { channel: string }) => r.channel)).toEqual(['alipay', 'bank-x']);
    for (const [body, field] of [
      [{ candidates: [] }, 'candidates'],
      [{ candidates: ['a', 'a'] }, 'candidates[1]'],
      [{ candidates: ['a'], amount: -5 }, 'amount'],
    ] as const) {
      const bad = await send('POST', '/v1/route', body);
      expect(bad.status).toBe(400);
      const { error } = await bad.json();
      expect(error.code).toBe('PP_ERR_VALIDATION');
      expect(error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    }
  });

  it('forces a breaker open with the token only, and the next decision fails over', async () => {
    expect((await send('PUT', '/v1/channels/alipay/breaker', { mode: 'force-open' }, false)).status).toBe(401);
    const bad = await send('PUT', '/v1/channels/alipay/breaker', { mode: 'ajar' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details[0].field).toBe('mode');
    const put = await send('PUT', '/v1/channels/alipay/breaker', { mode: 'force-open' });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ channel: 'alipay', state: 'open', mode: 'force-open' });
    const get = await send('GET', '/v1/channels/alipay/breaker');
    expect(await get.json()).toMatchObject({ state: 'open', mode: 'force-open', since: stack.clock.now() });
    const decision = await (await send('POST', '/v1/route', { candidates: ['alipay', 'bank-x'] })).json();
    expect(decision.channel).toBe('bank-x');
    expect(decision.ranked).toEqual([
      expect.objectContaining({ channel: 'bank-x', state: 'closed' }),
      expect.objectContaining({ channel: 'alipay', state: 'open' }),
    ]);
    await send('PUT', '/v1/channels/alipay/breaker', { mode: 'auto' });
    expect(await (await send('GET', '/v1/channels/alipay/breaker')).json()).toMatchObject({ state: 'closed', mode: 'auto' });
  });

  it('the CLI reads and overrides a breaker', async () => {
    const lines: string[] = [];
    const write = (line: string) => lines.push(line);
    await expect(runBreaker({ target: base, channel: 'bank-x', mode: 'force-open', write })).rejects.toThrow(/401 PP_ERR_UNAUTHORIZED/);
    await runBreaker({ target: base, channel: 'bank-x', mode: 'force-open', token, write });
    // Reads need the token too once one is set.
    const read = await runBreaker({ target: base, channel: 'bank-x', token, write });
    expect(read).toMatchObject({ state: 'open', mode: 'force-open' });
    expect(lines.at(-1)).toMatch(/^bank-x: open \(mode force-open, since 2026-/);
    await expect(runBreaker({ target: base, channel: 'bank-x', mode: 'shut', token, write })).rejects.toThrow(/mode must be one of/);
    await runBreaker({ target: base, channel: 'bank-x', mode: 'auto', token, write });
  });

  it('reports the experiment', async () => {
    const res = await send('GET', '/v1/routing/experiment');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ share: 0, difference: null, significant: false });
  });
});
