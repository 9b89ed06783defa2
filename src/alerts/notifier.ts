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
  /** Receivers of the new rules from the next notification on; the old ones finish what they hold. */
  setRules(rules: AlertRules): void;
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
  let current = receiversOf(rules, delivery, options.logger);
  // Receivers replaced by a reload still deliver what they hold; idle() waits for them too, and each is
  // forgotten once its queue is empty, so reloads do not pile them up.
  const retired = new Set<Receivers>();
  return {
    get receivers() {
      return current.names;
    },
    dispatch(n: AlertNotification) {
      for (const w of current.webhooks) w.send(n);
      current.alertmanager?.send(n);
      if (current.logger) {
        logNotification(current.logger, n);
        onResult('log', 'sent');
      }
    },
    firing(active: ActiveAlert[], nowMs: number) {
      current.alertmanager?.firing(active, nowMs);
    },
    setRules(next: AlertRules) {
      const old = current;
      retired.add(old);
      void idleOf(old).then(() => retired.delete(old));
      current = receiversOf(next, delivery, options.logger);
    },
    counts: () => counts,
    async idle() {
      await Promise.all([current, ...retired].map(idleOf));
    },
  };
}

interface Receivers {
  names: string[];
  webhooks: WebhookReceiver[];
  alertmanager?: AlertmanagerReceiver;
  logger?: PulseLogger;
}

async function idleOf(r: Receivers): Promise<void> {
  await Promise.all([...r.webhooks.map((w) => w.idle()), r.alertmanager?.idle()]);
}

function receiversOf(rules: AlertRules, delivery: Parameters<typeof createWebhookReceiver>[1], logger: PulseLogger | undefined): Receivers {
  const webhooks = rules.webhooks.map((w) => createWebhookReceiver(w, delivery));
  const alertmanager = rules.alertmanager ? createAlertmanagerReceiver(rules.alertmanager, delivery) : undefined;
  const log = rules.log ? logger : undefined;
  return {
    names: [...webhooks.map((w) => w.name), ...(alertmanager ? [alertmanager.name] : []), ...(log ? ['log'] : [])],
    webhooks,
    ...(alertmanager ? { alertmanager } : {}),
    ...(log ? { logger: log } : {}),
  };
}
