// `paypulse top` against a real service with a token: reads need it, so the CLI sends it (--token or
// PAYPULSE_TOKEN) and prints the channel rows; without it the error names the URL.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/index.js';
import { runTop } from '../../src/cli/top.js';
import { clockText } from '../../src/cli/table.js';
import { createTopView } from '../../src/cli/topView.js';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';

const token = 'top-secret-0123456789';
let service: RunningService;

/** Waits until the service's health snapshot (refreshed once a second) holds `count` channels. */
async function waitForChannels(url: string, count: number, headers: Record<string, string> = {}): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const body = (await (await fetch(`${url}/v1/channels`, { headers })).json()) as { total: number };
    if (body.total >= count) return;
    if (Date.now() > deadline) throw new Error(`${url} never listed ${count} channels`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', token });
  const now = Date.now();
  const outcomes = Array.from({ length: 40 }, (_, i) => ({
    channel: i % 2 ? 'alipay' : 'bank-x', requestId: `r${i}`, status: i % 5 ? 'success' : 'failure', at: now - i * 10,
  }));
  const res = await fetch(`${service.url}/v1/outcomes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ outcomes }),
  });
  expect(res.status).toBe(200);
  await waitForChannels(service.url, 2, { authorization: `Bearer ${token}` });
}, 60_000);

afterAll(async () => {
  await service?.close();
});

/** What `paypulse top --once …` prints, run through the command line parser. */
async function topOutput(args: string[]): Promise<string> {
  let printed = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  });
  try {
    await main(['node', 'paypulse', 'top', '--once', '--target', service.url, ...args]);
  } finally {
    write.mockRestore();
  }
  return printed;
}

describe('paypulse top', () => {
  it('sends --token and prints a row per channel', async () => {
    const text = await topOutput(['--token', token]);
    expect(text).toMatch(/^channel/);
    expect(text).toMatch(/^alipay .*n=20/m);
    expect(text).toMatch(/^bank-x .*n=20/m);
  });

  it('takes the token from PAYPULSE_TOKEN', async () => {
    vi.stubEnv('PAYPULSE_TOKEN', token);
    try {
      expect(await topOutput([])).toMatch(/^alipay /m);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('names the URL on a 401, with or without a wrong token', async () => {
    const url = `${service.url}/v1/channels`;
    await expect(runTop({ target: service.url, once: true, write: () => undefined })).rejects.toThrow(`${url} answered 401: it needs a token`);
    await expect(runTop({ target: service.url, token: 'wrong-token-0123456789', once: true, write: () => undefined }))
      .rejects.toThrow(`${url} answered 401: the token was refused`);
  });
});

describe('paypulse top past the page size', () => {
  let paged: RunningService;
  beforeAll(async () => {
    paged = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', pageChannels: 1 });
    const now = Date.now();
    // bank-x fails 8 of 10, alipay 1 of 10: bank-x is the worse.
    const outcomes = Array.from({ length: 20 }, (_, i) => ({
      channel: i < 10 ? 'alipay' : 'bank-x', requestId: `p${i}`, status: (i < 10 ? i < 1 : i < 18) ? 'failure' : 'success', at: now - i * 10,
    }));
    await fetch(`${paged.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
    await waitForChannels(paged.url, 2);
  }, 60_000);
  afterAll(async () => {
    await paged?.close();
  });

  it('shows the worst channel the service sends and says how many it leaves out', async () => {
    let text = '';
    await runTop({ target: paged.url, once: true, write: (chunk) => (text += chunk) });
    expect(text).toMatch(/^bank-x .*20\.0%/m);
    expect(text).not.toMatch(/^alipay /m);
    expect(text).toContain('1 of 2 channels: the worst ones');
  });
});

// The row's state is the server's verdict (stats/verdict.ts via GET /v1/channels), the one the dashboard paints
// and the alerts decide on: not the plain grade of a rate the terminal used to compute.
describe('paypulse top grades rows by the verdict', () => {
  let alerted: RunningService;
  beforeAll(async () => {
    alerted = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', alerts: { evaluateEvery: '5s' } });
    const now = Date.now();
    const outcomes = [
      // 88 % of 130: the plain rate is below warn (95 %), its z-4 interval reaches 95 %: the alerts say OK.
      ...Array.from({ length: 130 }, (_, i) => ({ channel: 'wallet-z', requestId: `w${i}`, status: i < 114 ? 'success' : 'failure', at: now - i * 10 })),
      // 20 % of 150, the failures named: critical, and its alert fires at the first evaluation.
      ...Array.from({ length: 150 }, (_, i) => ({
        channel: 'bank-x', requestId: `b${i}`, status: i < 30 ? 'success' : 'failure', at: now - i * 10,
        ...(i < 30 ? {} : { code: i % 3 ? 'issuer_unavailable' : 'do_not_honor' }),
      })),
      // 30 outcomes at 50 %: too few for a level.
      ...Array.from({ length: 30 }, (_, i) => ({ channel: 'alipay', requestId: `a${i}`, status: i % 2 ? 'success' : 'failure', at: now - i * 10 })),
    ];
    const res = await fetch(`${alerted.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
    expect(res.status).toBe(200);
    await waitForChannels(alerted.url, 3);
    await alerted.pulse.snapshots.refresh();
    await alerted.pulse.alerts!.evaluate();
    expect(alerted.pulse.alerts!.active().map((a) => a.channel)).toEqual(['bank-x']);
  }, 60_000);
  afterAll(async () => {
    await alerted?.close();
  });

  it('shows each row in the state the server judged it, with the alert and its codes', async () => {
    let text = '';
    await runTop({ target: alerted.url, once: true, write: (chunk) => (text += chunk) });
    const rowOf = (channel: string) => text.split('\n').find((line) => line.startsWith(`${channel} `)) ?? '';
    expect(rowOf('wallet-z')).toMatch(/^wallet-z +OK +since \d\d:\d\d:\d\d .*87\.7%/);
    expect(rowOf('bank-x')).toMatch(/^bank-x +CRITICAL · alert +since \d\d:\d\d:\d\d /);
    expect(rowOf('bank-x')).toMatch(/issuer_unavailable 67%, do_not_honor 33%$/);
    expect(rowOf('alipay')).toMatch(/^alipay +few samples /);
    expect(text.split('\n')[0]).toMatch(/^channel +state +since .*top codes \(5m\)$/);
  });

  it('dates a state without an alert from when the view first saw it, and an alerted one from its firing', async () => {
    const view = createTopView(alerted.url, undefined);
    const firstSeen = Date.UTC(2026, 0, 1, 9, 0, 0);
    await view.text(firstSeen);
    const text = await view.text(firstSeen + 65_000);
    const rowOf = (channel: string) => text.split('\n').find((line) => line.startsWith(`${channel} `)) ?? '';
    expect(rowOf('wallet-z')).toContain(`since ${clockText(firstSeen)}`);
    const firedAt = alerted.pulse.alerts!.active().find((a) => a.channel === 'bank-x')!.since;
    expect(rowOf('bank-x')).toContain(`since ${clockText(firedAt)}`);
  });
});
