// Webhook receivers against real HTTP servers of the test's own: the signature checked as a receiver would,
// retries on 500, a receiver that hangs or refuses delaying no other, and the Slack payload.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyEvidence, type AlertNotification } from '../../src/alerts/notification.js';
import { createNotifier } from '../../src/alerts/notifier.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { freePort } from '../support/redisServer.js';

interface Received {
  body: string;
  headers: IncomingMessage['headers'];
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => {
    s.closeAllConnections();
    s.close(resolve);
  })));
});

/** A receiver answering each request with the next status of `statuses` (the last one repeats); 0 hangs. */
async function receiver(statuses: number[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  let i = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ body, headers: req.headers });
      const status = statuses[Math.min(i++, statuses.length - 1)]!;
      if (status === 0) return; // hangs: never answers
      res.writeHead(status).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

const notification: AlertNotification = {
  id: 'rate/@bank-x', alertname: 'PayPulseSuccessRateLow', rule: 'rate', ruleId: 'rate', channel: 'bank-x',
  transition: 'firing', level: 'major', previousLevel: null,
  rate: { window: '1m', rate: 0.41, low: 0.37, high: 0.45, total: 600, failure: 354 },
  window: '5m', since: Date.UTC(2026, 0, 1), at: Date.UTC(2026, 0, 1), dashboardUrl: 'http://127.0.0.1:8080/?channel=bank-x',
  evidence: { ...emptyEvidence, failedRequests: [{ requestId: 'r-9', at: 1, code: 'do_not_honor' }], topCodes: [{ code: 'do_not_honor', count: 1 }] },
  muted: false,
};

/** What a receiver does with the header: recompute the HMAC over the raw body and compare in constant time. */
function verified(secret: string, r: Received): boolean {
  const header = String(r.headers['x-paypulse-signature'] ?? '');
  const expected = `sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`;
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

describe('webhook receivers', () => {
  it('signs the raw JSON body with HMAC-SHA256, and the signature fails for another secret or body', async () => {
    const hook = await receiver([200]);
    const rules = resolveAlertRules({ webhooks: [{ url: hook.url, secret: 's3cret' }], log: false });
    const notifier = createNotifier(rules, { backoffMs: 5 });
    notifier.dispatch(notification);
    await notifier.idle();
    expect(hook.received).toHaveLength(1);
    const got = hook.received[0]!;
    expect(verified('s3cret', got)).toBe(true);
    expect(verified('other', got)).toBe(false);
    expect(verified('s3cret', { ...got, body: got.body.replace('bank-x', 'bank-y') })).toBe(false);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ version: 1, channel: 'bank-x', level: 'major', transition: 'firing' });
    expect(body.evidence.failedRequests[0].requestId).toBe('r-9');
    expect(notifier.counts()[notifier.receivers[0]!]).toEqual({ sent: 1 });
  });

  it('retries a 500 with backoff until it is taken, and gives up after `retries`', async () => {
    const flaky = await receiver([500, 503, 200]);
    const broken = await receiver([500]);
    const rules = resolveAlertRules({ webhooks: [{ url: flaky.url, retries: 3 }, { url: broken.url, retries: 2 }], log: false });
    const notifier = createNotifier(rules, { backoffMs: 5 });
    notifier.dispatch(notification);
    await notifier.idle();
    expect(flaky.received).toHaveLength(3);
    expect(broken.received).toHaveLength(3);
    const [a, b] = notifier.receivers;
    expect(notifier.counts()[a!]).toEqual({ retried: 2, sent: 1 });
    expect(notifier.counts()[b!]).toEqual({ retried: 2, failed: 1 });
  });

  it('a receiver that hangs or refuses delays no other receiver and never the caller', async () => {
    const hanging = await receiver([0]);
    const good = await receiver([200]);
    const refusedUrl = `http://127.0.0.1:${await freePort()}/hook`;
    const rules = resolveAlertRules({
      webhooks: [{ url: hanging.url, timeoutMs: 300, retries: 1 }, { url: refusedUrl, retries: 1 }, { url: good.url }],
      log: false,
    });
    const notifier = createNotifier(rules, { backoffMs: 5 });
    for (let i = 0; i < 3; i++) notifier.dispatch({ ...notification, at: notification.at + i });
    // dispatch returned without waiting: the good receiver gets all three while the hanging one still hangs.
    const [hangingName, refusedName, goodName] = notifier.receivers;
    await expect.poll(() => good.received.length, { timeout: 5_000 }).toBe(3);
    expect(notifier.counts()[hangingName!]?.sent).toBeUndefined();
    await notifier.idle();
    expect(notifier.counts()[goodName!]).toEqual({ sent: 3 });
    expect(notifier.counts()[hangingName!]).toEqual({ retried: 3, failed: 3 });
    expect(notifier.counts()[refusedName!]).toEqual({ retried: 3, failed: 3 });
  }, 20_000);

  it('sends a Slack-compatible text payload in the slack format', async () => {
    const hook = await receiver([200]);
    const notifier = createNotifier(resolveAlertRules({ webhooks: [{ url: hook.url, format: 'slack' }], log: false }));
    notifier.dispatch(notification);
    await notifier.idle();
    const body = JSON.parse(hook.received[0]!.body);
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text).toContain('bank-x');
    expect(body.text).toContain('41.0 %');
    expect(body.text).toContain('`r-9`');
    expect(body.text).toContain('<http://127.0.0.1:8080/?channel=bank-x|dashboard>');
  });

  it('drops past the bounded queue and counts it', async () => {
    const hanging = await receiver([0]);
    const rules = resolveAlertRules({ webhooks: [{ url: hanging.url, timeoutMs: 200, retries: 0 }], log: false });
    const notifier = createNotifier(rules);
    for (let i = 0; i < 1_005; i++) notifier.dispatch(notification);
    const name = notifier.receivers[0]!;
    expect(notifier.counts()[name]!.dropped).toBe(4);
  });
});
