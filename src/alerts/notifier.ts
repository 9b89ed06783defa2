// Fans each notification out to every configured receiver (webhooks, Alertmanager, the log) and counts
// what became of it per receiver and result, for `paypulse_alert_notifications_total`.
import type { PulseLogger } from '../types.js';
import type { AlertSink } from './evaluator.js';
import type { ActiveAlert, AlertNotification } from './notification.js';
import { createAlertmanagerReceiver, type AlertmanagerReceiver } from './receivers/alertmanager.js';
import type { DeliveryResult } from './receivers/delivery.js';
import { logNotification } from './receivers/log.js';
import { createWebhookReceiver, type WebhookReceiver } from './receivers/webhook.js';
import type { AlertRules } from './rules.js';

export interface NotifierOptions {
  logger?: PulseLogger;
  /** First retry delay of every receiver (tests shorten it). */
  backoffMs?: number;
  onResult?: (receiver: string, result: DeliveryResult | 'muted') => void;
}

export interface Notifier extends AlertSink {
  readonly receivers: string[];
  /** Notification results by `receiver` then result. */
  counts(): Record<string, Partial<Record<DeliveryResult, number>>>;
  /** Resolves when every receiver's queue is empty. */
  idle(): Promise<void>;
}

export function createNotifier(rules: AlertRules, options: NotifierOptions = {}): Notifier {
  const counts: Record<string, Partial<Record<DeliveryResult, number>>> = {};
  const onResult = (receiver: string, result: DeliveryResult, detail?: string) => {
    const mine = (counts[receiver] ??= {});
    mine[result] = (mine[result] ?? 0) + 1;
    options.onResult?.(receiver, result);
    if (result === 'failed' || result === 'dropped') options.logger?.warn({ receiver, detail }, `paypulse: alert notification ${result}`);
  };
  const delivery = { onResult, ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}) };
  const webhooks: WebhookReceiver[] = rules.webhooks.map((w) => createWebhookReceiver(w, delivery));
  const alertmanager: AlertmanagerReceiver | undefined = rules.alertmanager ? createAlertmanagerReceiver(rules.alertmanager, delivery) : undefined;
  const logger = rules.log ? options.logger : undefined;
  return {
    receivers: [...webhooks.map((w) => w.name), ...(alertmanager ? [alertmanager.name] : []), ...(logger ? ['log'] : [])],
    dispatch(n: AlertNotification) {
      for (const w of webhooks) w.send(n);
      alertmanager?.send(n);
      if (logger) {
        logNotification(logger, n);
        onResult('log', 'sent');
      }
    },
    firing(active: ActiveAlert[], nowMs: number) {
      alertmanager?.firing(active, nowMs);
    },
    counts: () => counts,
    async idle() {
      await Promise.all([...webhooks.map((w) => w.idle()), alertmanager?.idle()]);
    },
  };
}
