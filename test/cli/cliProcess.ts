// Runs the real `paypulse` command from source in a child process (tsx), as a user would from a terminal,
// collecting what it prints. Every process started here is killed by `stop()` or when it exits on its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('./cliEntry.ts', import.meta.url));

export interface CliProcess {
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** Waits until stdout holds a match of `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Sends a signal (SIGHUP …) to the process. */
  signal(name: NodeJS.Signals): void;
  stop(): Promise<void>;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    async waitFor(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(stdout)) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} in the output within ${timeoutMs} ms:\n${stdout}\n${stderr}`);
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before printing ${pattern}:\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    signal(name) {
      child.kill(name);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
