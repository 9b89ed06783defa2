// The `paypulse` command as a user meets it, in a child process: --version, errors that name the URL they
// failed on, and `simulate` against a target that is down, then up: a start line, one line for the outage
// (not one a tick), one when the target takes outcomes again, and human progress lines.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';
import { freePort } from '../support/redisServer.js';
import { runCli, type CliProcess } from './cliProcess.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

function started(args: string[], env?: NodeJS.ProcessEnv): CliProcess {
  const cli = runCli(args, env);
  cleanups.push(() => cli.stop());
  return cli;
}

describe('paypulse', () => {
  it('--version prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const cli = started(['--version']);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout.trim()).toBe(version);
  });

  it('top names the URL it cannot reach', async () => {
    const port = await freePort();
    const cli = started(['top', '--once', '--target', `http://127.0.0.1:${port}`]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr).toContain(`cannot reach http://127.0.0.1:${port}/v1/channels: ECONNREFUSED`);
  });

  it('breaker names the URL that refused it', async () => {
    const service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent' });
    cleanups.push(() => service.close());
    const cli = started(['breaker', 'a*b', '--target', service.url]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr).toContain(`${service.url}/v1/channels/a*b/breaker answered 400 PP_ERR_VALIDATION`);
  });

  it('simulate says it started, backs off with one line while its target is down, and resumes', async () => {
    const port = await freePort();
    const target = `http://127.0.0.1:${port}`;
    const cli = started(['simulate', '--target', target, '--volume', '0.2', '--progress-every', '1']);
    await cli.waitFor(/paypulse simulate: sending simulated outcomes to http:\/\/127\.0\.0\.1:\d+/);
    await cli.waitFor(/cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/outcomes: ECONNREFUSED; backing off/);
    // Several ticks (250 ms) and retries pass while it is down: still one line about it, and no stack trace.
    await cli.waitFor(/skipped while the target was down/);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(cli.stdout.match(/cannot reach/g)).toHaveLength(1);
    expect(cli.stdout + cli.stderr).not.toMatch(/\n\s+at /);

    const service: RunningService = await startService({ ...defaultConfig, port, logLevel: 'silent' });
    cleanups.push(() => service.close());
    await cli.waitFor(/takes outcomes again after \d+ s/, 40_000);
    await cli.waitFor(/paypulse simulate: [1-9][\d,]* outcomes sent \([\d,]+\/s\)/);
    expect(service.pulse.health().knownChannels).toBeGreaterThan(0);
  });
});
