// The hostile clients of scenario C, on raw sockets (an HTTP client would read what it is sent):
// stream clients that never read, and POSTs that announce a 5 MB body and send a byte every 5 s.
// Slow bodies run in child processes of their own, 10,000 each, under the per-process descriptor limit.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface Target {
  host: string;
  port: number;
}

function open(target: Target, localAddress: string | undefined, request: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port, ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => {
      socket.write(request);
      resolve(socket);
    });
    // A refused or reset socket is what the limits are for; the caller counts the ones that opened.
    socket.once('error', () => resolve(undefined));
  });
}

/**
 * `count` GET /v1/stream that never read, spread over loopback source addresses 127.0.0.2… so the
 * per-address stream limit (`perAddress`) admits them all, as it would clients behind distinct addresses.
 */
export async function openSilentStreams(target: Target, count: number, perAddress: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i++) {
    const n = 2 + Math.floor(i / perAddress);
    const local = `127.0.${Math.floor(n / 254)}.${(n % 254) + 1}`;
    const socket = await open(target, local, `GET /v1/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`);
    if (!socket) continue;
    socket.pause(); // never read: the kernel buffers fill, then the server's
    socket.on('error', () => undefined);
    sockets.push(socket);
  }
  return sockets;
}

const slowBodyRequest = 'POST /v1/outcomes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{';

/** In a child: opens `count` slow bodies, a byte every 5 s each; prints how many are open each second. */
async function slowBodies(target: Target, count: number): Promise<void> {
  const sockets = new Set<Socket>();
  setInterval(() => {
    for (const s of sockets) s.write(' ');
  }, 5_000).unref();
  setInterval(() => process.stdout.write(`${JSON.stringify({ open: sockets.size })}\n`), 1_000);
  for (let i = 0; i < count; i++) {
    const socket = await open(target, undefined, slowBodyRequest);
    if (!socket) continue;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  }
}

export interface SlowBodyChild {
  child: ChildProcess;
  /** Sockets the child holds open now. */
  open(): number;
}

export function startSlowBodies(target: Target, count: number): SlowBodyChild {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--slow-bodies', target.host, String(target.port), String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let open = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    const last = chunk.toString().trim().split('\n').at(-1);
    if (last) open = (JSON.parse(last) as { open: number }).open;
  });
  return { child, open: () => open };
}

if (process.argv[2] === '--slow-bodies') {
  const [, , , host, port, count] = process.argv;
  void slowBodies({ host: host!, port: Number(port) }, Number(count));
}
