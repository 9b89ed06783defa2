// `paypulse serve --config file` reloads on SIGHUP as an operator would use it: a new threshold is answered
// at once, a broken file is refused in the log, field by field, and the service keeps serving the old one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliProcess } from './cliProcess.js';

const dir = mkdtempSync(join(tmpdir(), 'paypulse-sighup-'));
const file = join(dir, 'paypulse.yaml');
const writeLevels = (warn: number) => writeFileSync(file, `port: 0\nthresholds: { warn: ${warn}, major: 0.6, critical: 0.3 }\n`);

describe('paypulse serve on SIGHUP', () => {
  let serve: CliProcess | undefined;
  afterAll(async () => {
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the file again, and refuses a broken one keeping the running configuration', async () => {
    writeLevels(0.9);
    serve = runCli(['serve', '--config', file], { PAYPULSE_DATA_DIR: dir });
    await serve.waitFor(/paypulse serving/, 60_000);
    const url = JSON.parse(serve.stdout.split('\n').find((l) => l.includes('paypulse serving'))!).url as string;
    const warn = async () => (await (await fetch(`${url}/v1/channels`)).json()).thresholds.warn;
    expect(await warn()).toBe(0.9);

    writeLevels(0.97);
    serve.signal('SIGHUP');
    await serve.waitFor(/configuration reloaded/);
    expect(await warn()).toBe(0.97);

    writeLevels(1.5);
    serve.signal('SIGHUP');
    await serve.waitFor(/reload refused/);
    expect(serve.stdout).toMatch(/thresholds\.warn/);
    expect(await warn()).toBe(0.97);
  }, 90_000);
});
