// A notification's dashboard link leads to the service that sent it: its own address (an ephemeral port here),
// not a default one, unless the config names another.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig, startService, type RunningService } from '../../src/server/index.js';

let service: RunningService | undefined;
afterEach(async () => service?.close());

async function until<T>(read: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the dashboard link of a notification', () => {
  it("is the serving instance's own address, in every /v1/alerts entry", async () => {
    service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', alerts: { evaluateEvery: '1s', silent: false, log: false } });
    const at = Date.now() - 1_000;
    const outcomes = Array.from({ length: 300 }, (_, i) => ({ channel: 'acq-30', requestId: `r${i}`, status: i % 10 < 3 ? 'success' : 'failure', at }));
    const posted = await fetch(`${service.url}/v1/outcomes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }) });
    expect(posted.status).toBe(200);
    const entry = await until(async () => {
      const body = (await (await fetch(`${service!.url}/v1/alerts`)).json()) as { alerts: Array<{ channel: string; dashboardUrl: string }> };
      return body.alerts.find((a) => a.channel === 'acq-30');
    }, 15_000);
    expect(entry?.dashboardUrl).toBe(`${service.url}/?channel=acq-30`);
  }, 30_000);

  it('is the configured one when the config names it', async () => {
    service = await startService({ ...defaultConfig, port: 0, logLevel: 'silent', alerts: { dashboardUrl: 'https://paypulse.example/', log: false } });
    expect(service.pulse.alerts!.rules.dashboardUrl).toBe('https://paypulse.example/');
  }, 30_000);
});
