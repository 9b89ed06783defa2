// Starts throw-away redis-server processes on free ports, for tests and benchmarks.
// We never touch a Redis we did not start: whatever we flush or kill is our own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL, like a crash) and starts it again on the same port, empty. */
  restart(): Promise<void>;
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** SIGSTOP: the server holds its sockets and data but answers nothing (a hung host, a long fork), until resume(). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

export interface LocalCluster {
  /** Root node URLs, one per master. */
  urls: string[];
  /** The masters' ports, in `urls` order. */
  ports: number[];
  /** Index (in `urls`) of the master serving `slot`, as CLUSTER SLOTS of a live master says. */
  masterOfSlot(slot: number): number;
  /** SIGKILL master `index` (a crash). Without replicas nobody takes its slots over. */
  killMaster(index: number): Promise<void>;
  /** Starts master `index` again on its port with its node file: it rejoins with its slots, empty. */
  restartMaster(index: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** More redis-server arguments for every master, e.g. `['--cluster-require-full-coverage', 'no']`. */
  extraArgs?: string[];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function spawnRedis(port: number, dir: string, extra: string[]): ChildProcess {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra],
    { stdio: 'ignore' },
  );
  child.unref();
  return child;
}

async function killChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  // The child is unref'd so it never keeps a test alive; while we wait for its exit it must.
  child.ref();
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** `port` picks the port (a test that first connects to a port nobody listens on); a free one otherwise. */
export async function startRedis(extraArgs: string[] = [], options: { port?: number } = {}): Promise<LocalRedis> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'paypulse-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawnRedis(port, dir, extraArgs);
    await waitForPort(port);
  };
  const kill = () => killChild(child);
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    kill,
    restart: async () => {
      await kill();
      await start();
    },
    pause: () => {
      child?.kill('SIGSTOP');
    },
    resume: () => {
      child?.kill('SIGCONT');
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Three masters, no replicas: the smallest real Redis Cluster. */
export async function startCluster(masters = 3, options: ClusterOptions = {}): Promise<LocalCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'paypulse-cluster-'));
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  const spawnMaster = (port: number) =>
    spawnRedis(port, dir, ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, ...(options.extraArgs ?? [])]);
  for (let i = 0; i < masters; i++) {
    const port = await freePort();
    ports.push(port);
    children.push(spawnMaster(port));
  }
  await Promise.all(ports.map((p) => waitForPort(p)));
  const created = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
    { encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const states = ports.map(
      (p) => spawnSync('redis-cli', ['-p', String(p), 'cluster', 'info'], { encoding: 'utf8' }).stdout,
    );
    if (states.every((s) => s.includes('cluster_state:ok'))) break;
    if (Date.now() > deadline) throw new Error('cluster did not reach cluster_state:ok');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    urls: ports.map((p) => `redis://127.0.0.1:${p}`),
    ports,
    masterOfSlot: (slot) => {
      for (const [i, port] of ports.entries()) {
        if (children[i]!.exitCode !== null || children[i]!.signalCode !== null) continue;
        const lines = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'slots'], { encoding: 'utf8' }).stdout.split('\n');
        // Each range prints as: start, end, master ip, master port, master id (and its replicas after).
        for (let l = 0; l + 3 < lines.length; l++) {
          const [start, end, , owner] = lines.slice(l, l + 4).map((x) => Number(x.trim()));
          if (slot >= start! && slot <= end! && ports.includes(owner!)) return ports.indexOf(owner!);
        }
      }
      throw new Error(`no live master knows slot ${slot}`);
    },
    killMaster: (index) => killChild(children[index]),
    restartMaster: async (index) => {
      await killChild(children[index]);
      children[index] = spawnMaster(ports[index]!);
      await waitForPort(ports[index]!);
    },
    stop: async () => {
      await Promise.all(children.map(killChild));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
