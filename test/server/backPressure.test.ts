// Slow readers must not make the server buffer without bound: a stream client that stops reading is held to
// a small buffer, caught up when it reads again and disconnected when it does not; a client pipelining
// thousands of requests without reading is disconnected before the answers pile up. Real sockets; the
// server-side socket is looked at directly, since its buffer is the thing being bounded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { defaultConfig } from '../../src/server/config.js';
import { afterEach, describe, expect, it } from 'vitest';
import { engines, makeApp, type TestApp } from './harness.js';
import { openRaw, type RawClient } from './rawSocket.js';

const maxBufferedBytes = 64 * 1024;
const eventPad = 'x'.repeat(20_000);

async function listening(config: Record<string, number>): Promise<{ t: TestApp; port: number; serverSockets: Socket[] }> {
  const t = await makeApp(engines[0]!, { config: { streamMaxBufferedBytes: maxBufferedBytes, ...config } });
  const serverSockets: Socket[] = [];
  t.app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, port: (t.app.server.address() as AddressInfo).port, serverSockets };
}

async function until(check: () => boolean, maxMs = 10_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

/** A stream client that has sent its request and reads nothing. */
async function stalledStream(port: number): Promise<RawClient> {
  const client = await openRaw(port, { read: false });
  client.socket.write('GET /v1/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
  return client;
}

describe('back-pressure on the stream', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('never buffers more than the limit and one event for a client that stops reading, then drops it', { timeout: 60_000 }, async () => {
    const { t, port, serverSockets } = await listening({ streamStallGraceMs: 300 });
    app = t;
    const client = await stalledStream(port);
    await until(() => t.app.paypulse.hub.subscribers === 1);
    const server = serverSockets.at(-1)!;
    let mostBuffered = 0;
    // 20 MB of events: more than the loopback socket buffers hold, so the rest would wait in the process.
    for (let i = 0; i < 1_000 && !server.destroyed; i++) {
      t.app.paypulse.hub.publish('test', { i, pad: eventPad });
      mostBuffered = Math.max(mostBuffered, server.writableLength);
    }
    expect(mostBuffered).toBeLessThanOrEqual(maxBufferedBytes + eventPad.length + 100);
    // The client reads nothing, so it would not even see the close: the server's side is what is checked.
    await until(() => server.destroyed);
    expect(server.destroyed).toBe(true);
    expect(t.app.paypulse.hub.subscribers).toBe(0);
    client.socket.destroy();
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/^paypulse_stream_dropped_clients_total 1$/m);
  });

  it('catches a client up from the replay buffer, in order, when it reads again within the grace', async () => {
    const { t, port } = await listening({ streamStallGraceMs: 30_000, streamReplayEvents: 1_000 });
    app = t;
    const client = await stalledStream(port);
    await until(() => t.app.paypulse.hub.subscribers === 1);
    const published = 400; // 8 MB: past what the socket buffers take, within what the hub keeps
    for (let i = 0; i < published; i++) t.app.paypulse.hub.publish('test', { i, pad: eventPad });
    let text = '';
    client.socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    client.socket.resume();
    // The app's own `rates` events (its snapshot timer runs) may come before or after the test's: every
    // event published from the first on must arrive once, in order, the test's 400 among them.
    const frames = () => [...text.matchAll(/^id: (\d+)\nevent: (\w+)$/gm)].map((m) => ({ id: Number(m[1]), type: m[2] }));
    const testIds = () => frames().filter((f) => f.type === 'test').map((f) => f.id);
    await until(() => testIds().length >= published);
    const ids = frames().map((f) => f.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => ids[0]! + i));
    expect(testIds()).toHaveLength(published);
    expect(text).not.toMatch(/event: gap/);
    expect(t.app.paypulse.hub.subscribers).toBe(1);
    client.socket.destroy();
  });
});

describe('pipelined requests from a client that does not read', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  // Without the cap Node pauses each socket once its queued answers pass the socket's high-water mark, but
  // only after parsing the whole TCP read: ≈ 1,800 requests a connection are then held, each with its answer.
  it('closes, or holds to a few unanswered requests, each of 20 sockets pipelining 2,000 GET /docs/json', async () => {
    const { t, port, serverSockets } = await listening({});
    app = t;
    // Requests that reached the server and have neither been answered nor abandoned, per connection, and
    // the most any connection ever had.
    const unanswered = new Map<Socket, number>();
    let mostUnanswered = 0;
    t.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.socket.destroyed) return;
      const count = (unanswered.get(req.socket) ?? 0) + 1;
      unanswered.set(req.socket, count);
      mostUnanswered = Math.max(mostUnanswered, count);
      let settled = false;
      const settle = () => {
        if (!settled) unanswered.set(req.socket, unanswered.get(req.socket)! - 1);
        settled = true;
      };
      res.on('finish', settle);
      res.on('close', settle);
    });
    const requests = 'GET /docs/json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2_000);
    const clients = await Promise.all(Array.from({ length: 20 }, () => openRaw(port, { read: false })));
    for (const client of clients) client.socket.write(requests);
    // Each connection ends up closed, or paused by Node (its answers unread) with few requests behind it.
    const settledDown = () => serverSockets.length === 20 && serverSockets.every((s) => s.destroyed || s.readableFlowing === false);
    await until(settledDown, 15_000);
    expect(settledDown()).toBe(true);
    // At most the cap, or one past it if this listener sees the request that crosses it before it is closed.
    expect(mostUnanswered).toBeLessThanOrEqual(defaultConfig.maxPipelinedRequests + 1);
    const open = serverSockets.filter((s) => !s.destroyed);
    for (const socket of open) expect(unanswered.get(socket) ?? 0).toBeLessThanOrEqual(defaultConfig.maxPipelinedRequests);
    // One refusal per closed connection, not one per request parsed after it was closed.
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    const refused = Number(/^paypulse_http_refused_connections_total\{reason="pipelining"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    expect(refused).toBe(20 - open.length);
    for (const client of clients) client.socket.destroy();
  }, 60_000);

  it('answers a client that pipelines a few requests and reads them', async () => {
    const { t, port } = await listening({});
    app = t;
    const client = await openRaw(port);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(10));
    await until(() => (client.received().match(/HTTP\/1\.1 200/g) ?? []).length === 10);
    expect(client.received().match(/HTTP\/1\.1 200/g)).toHaveLength(10);
    client.socket.destroy();
  });
});
