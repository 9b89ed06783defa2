// A library user who configures alerts gets them without calling anything else: `createPulse({ alerts })` starts
// the evaluation and the health snapshot it reads, and `close()` stops both (no notification after close).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPulse, type Pulse } from '../../src/index.js';

let server: Server | undefined;
let pulse: Pulse | undefined;
afterEach(async () => {
  await pulse?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

async function webhook(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/hook`, bodies };
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe('alerts configured through createPulse', () => {
  it('evaluate and notify with no further call, and stop at close', async () => {
    const hook = await webhook();
    pulse = await createPulse({ alerts: { evaluateEvery: '1s', silent: false, log: false, webhooks: [{ url: hook.url }] } });
    const now = Date.now();
    await pulse.recordMany(Array.from({ length: 400 }, (_, i) => ({
      channel: 'acq-30', requestId: `r-${i}`, status: i % 10 < 3 ? 'success' as const : 'failure' as const, at: now - 1_000 + i,
    })));
    expect(await until(() => hook.bodies.length > 0, 15_000)).toBe(true);
    expect(JSON.parse(hook.bodies[0]!)).toMatchObject({ channel: 'acq-30', transition: 'firing' });

    await pulse.close();
    pulse = undefined;
    const sent = hook.bodies.length;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(hook.bodies.length).toBe(sent);
  }, 30_000);
});
