// Webhook receiver: the notification as JSON (or as a Slack-compatible text payload), signed with
// `X-PayPulse-Signature: sha256=<hex HMAC-SHA256 of the raw body>` when a secret is set, so the receiver can
// check it came from us and was not altered.
import { createHmac } from 'node:crypto';
import { summaryOf, type AlertNotification } from '../notification.js';
import type { WebhookReceiverConfig } from '../rules.js';
import { DeliveryQueue, type DeliveryOptions } from './delivery.js';

export const signatureHeader = 'x-paypulse-signature';

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function percent(v: number | null | undefined): string {
  return v === null || v === undefined ? 'n/a' : `${(v * 100).toFixed(1)} %`;
}

/** Slack's incoming-webhook shape: `text` with mrkdwn; every client shows it. */
export function slackPayload(n: AlertNotification): { text: string } {
  const lines = [`*${summaryOf(n)}*`];
  if (n.rate) lines.push(`rate ${percent(n.rate.rate)} (95 % interval ${percent(n.rate.low)}–${percent(n.rate.high)}), ${n.rate.total} outcomes in ${n.rate.window}`);
  if (n.evidence.topCodes.length > 0) lines.push(`top codes: ${n.evidence.topCodes.map((c) => `${c.code} ×${c.count}`).join(', ')}`);
  if (n.evidence.failedRequests.length > 0) lines.push(`newest failed: ${n.evidence.failedRequests.map((f) => `\`${f.requestId}\``).join(' ')}`);
  lines.push(`since ${new Date(n.since).toISOString()} — <${n.dashboardUrl}|dashboard>`);
  return { text: lines.join('\n') };
}

export function webhookBody(n: AlertNotification, format: WebhookReceiverConfig['format']): string {
  return JSON.stringify(format === 'slack' ? slackPayload(n) : { version: 1, summary: summaryOf(n), ...n });
}

export interface WebhookReceiver {
  readonly name: string;
  send(n: AlertNotification): void;
  idle(): Promise<void>;
}

export function createWebhookReceiver(config: WebhookReceiverConfig, delivery: Omit<DeliveryOptions, 'receiver' | 'timeoutMs' | 'retries'> = {}): WebhookReceiver {
  const name = `webhook:${new URL(config.url).host}`;
  const queue = new DeliveryQueue({ ...delivery, receiver: name, timeoutMs: config.timeoutMs, retries: config.retries });
  return {
    name,
    send(n) {
      const body = webhookBody(n, config.format);
      queue.push({ url: config.url, body, headers: config.secret ? { [signatureHeader]: signBody(config.secret, body) } : {} });
    },
    idle: () => queue.idle(),
  };
}
