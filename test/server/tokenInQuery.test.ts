// The stream takes the token as `?token=` (a browser's EventSource cannot set headers), and only under that
// exact name: `?%74oken=` decodes to the same key in the query object, but it is not the documented parameter.
// Whatever name carried it, no log line holds a token. Over a real socket, with the service's logger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactedUrl } from '../../src/server/requestLog.js';
import { capturingLogger, engines, makeApp, type TestApp } from './harness.js';

const token = 'tok-0123456789abcdef';

describe('the token in a stream URL', () => {
  let t: TestApp;
  let base: string;
  const { logger, lines } = capturingLogger();
  beforeAll(async () => {
    t = await makeApp(engines[0]!, { config: { token }, logger });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  /** The status of GET `path`; a stream that opens is cancelled at once. */
  async function statusOf(path: string): Promise<number> {
    const controller = new AbortController();
    const res = await fetch(`${base}${path}`, { signal: controller.signal });
    controller.abort();
    return res.status;
  }

  it('is taken from ?token= exactly', async () => {
    expect(await statusOf(`/v1/stream?token=${token}`)).toBe(200);
  });

  it.each(['%74oken', 'tok%65n', '%74%6F%6B%65%6E'])('is not taken from ?%s=', async (name) => {
    expect(await statusOf(`/v1/stream?${name}=${token}`)).toBe(401);
  });

  it.each(['token', '%74oken', 'TOKEN', 'tok%65n', '%2574oken', 'Token'])('never reaches a log line, sent as ?%s= on a 4xx', async (name) => {
    const secret = `leak-${name.replace(/%/g, '')}-0123456789`;
    lines.length = 0;
    expect(await statusOf(`/v1/stream?lastEventId=1&${name}=${secret}`)).toBeGreaterThanOrEqual(400);
    expect(lines.length).toBeGreaterThan(0);
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(secret);
    expect(logged).toContain('lastEventId=1');
  });

  it('the serializer keeps every other parameter and the path', () => {
    expect(redactedUrl('/v1/stream?lastEventId=4&token=abc&%74oken=def')).toBe('/v1/stream?lastEventId=4&token=[redacted]&%74oken=[redacted]');
    expect(redactedUrl('/v1/channels/a/rate?window=5m')).toBe('/v1/channels/a/rate?window=5m');
    expect(redactedUrl('/v1/stream?%E0%A4%A=1&token')).toBe('/v1/stream?%E0%A4%A=1&token=[redacted]');
  });
});
