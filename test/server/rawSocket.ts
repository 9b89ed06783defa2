// A raw TCP client for tests about what a misbehaving HTTP client can do: trickle bytes, pipeline without
// reading, sit idle. It records what the server sent and when the server closed the connection.
import { connect, type Socket } from 'node:net';

export interface RawClient {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server (or anything) closes the connection. */
  closed: Promise<void>;
  isClosed(): boolean;
}

export function openRaw(port: number, { read = true }: { read?: boolean } = {}): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let isClosed = false;
    const closed = new Promise<void>((done) => socket.on('close', () => ((isClosed = true), done())));
    socket.on('error', () => undefined);
    if (read) socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    else socket.pause();
    socket.once('connect', () => resolve({ socket, received: () => text, closed, isClosed: () => isClosed }));
    socket.once('error', reject);
  });
}

/** Writes `bytes` one at a time every `everyMs` until the connection closes or `maxMs` pass. */
export async function trickle(client: RawClient, bytes: string, everyMs: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  for (let i = 0; !client.isClosed() && Date.now() < deadline; i++) {
    client.socket.write(bytes[i % bytes.length]!);
    await Promise.race([client.closed, new Promise((r) => setTimeout(r, everyMs))]);
  }
}

/** The JSON body of the first HTTP response in `text`. */
export function firstResponse(text: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const start = text.indexOf('\r\n\r\n');
  let body: unknown;
  try {
    body = JSON.parse(text.slice(start + 4));
  } catch {
    body = text.slice(start + 4);
  }
  return { status, body };
}
