// A benchmark's service in a child process of its own, so the load generator and the service never share a
// core's event loop. The child is `script` run with `--serve` (by default under tsx, `nodeArgs` otherwise);
// it prints `{"url": …}` once listening.
import { spawn, type ChildProcess } from 'node:child_process';

export async function startServiceChild(
  script: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = ['--import', 'tsx'],
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...nodeArgs, script, '--serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"url"'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code} before listening`)));
  });
  return { url, child };
}

/** SIGTERM, and SIGKILL if the child has not gone within 15 s: a benchmark stops what it starts. */
export async function stopServiceChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return; // exited, or killed by a signal
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
  });
}
