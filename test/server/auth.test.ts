// The token guards the route that will run, whatever spelling of its path reaches the router: percent-encoded
// segments and absolute-form request targets decode to /v1/outcomes, so they are tried over a real socket
// (inject() would normalise an absolute URL before the server saw it).
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, outcome, type TestApp } from './harness.js';

const token = 'tok-0123456789abcdef';

/** Sends one raw HTTP/1.1 request and resolves with the status code of the answer. */
function rawRequest(port: number, requestLine: string, body: string, headers: string[] = []): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
    const head = [requestLine, 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', ...headers];
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
}

describe('bearer token on every spelling of a /v1 write', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await makeApp(engines[0]!, { config: { token } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t?.close());

  const targets = ['/v1/outcomes', '/%761/outcomes', '/v%31/outcomes', '/v1/%6futcomes', 'http://x/v1/outcomes', 'http://127.0.0.1/%761/outcomes'];

  it.each(targets)('refuses POST %s without the token and records nothing', async (target) => {
    const body = JSON.stringify(outcome(t.clock, { channel: 'guarded' }));
    expect(await rawRequest(port, `POST ${target} HTTP/1.1`, body)).toBe(401);
    expect((await t.pulse.rate('guarded', { window: '1h' })).total).toBe(0);
  });

  it('takes an encoded path with the token: the route, not the spelling, decides', async () => {
    const body = JSON.stringify(outcome(t.clock, { channel: 'spelled' }));
    expect(await rawRequest(port, 'POST /%761/outcomes HTTP/1.1', body, [`Authorization: Bearer ${token}`])).toBe(200);
    expect((await t.pulse.rate('spelled', { window: '1h' })).total).toBe(1);
  });
});
