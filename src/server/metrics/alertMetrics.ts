// Prometheus series of the alerts: `paypulse_alerts_firing{channel,level}` (muted alerts included: they are
// firing), `paypulse_alert_notifications_total{receiver,result}` and `paypulse_alerts_paused` (1 while a store
// outage holds evaluation back).
import client, { type Registry } from 'prom-client';
import type { Alerts } from '../../alerts/index.js';

/** `paypulse_alert_notifications_total{receiver,result}`: the pulse observer's onAlertNotification. */
export function alertNotificationMetrics(registry: Registry): (receiver: string, result: string) => void {
  const notifications = new client.Counter({
    name: 'paypulse_alert_notifications_total',
    help: 'Alert notifications by receiver and result (sent, retried, failed, dropped).',
    labelNames: ['receiver', 'result'],
    registers: [registry],
  });
  return (receiver, result) => notifications.inc({ receiver, result });
}

/** The firing alerts and the paused flag, read at scrape time. */
export function registerAlertStateMetrics(registry: Registry, alerts: () => Pick<Alerts, 'active' | 'status'> | undefined): void {
  new client.Gauge({
    name: 'paypulse_alerts_firing',
    help: 'Alerts firing now (muted ones included), by channel and level.',
    labelNames: ['channel', 'level'],
    registers: [registry],
    collect() {
      this.reset();
      const counts = new Map<string, { channel: string; level: string; n: number }>();
      for (const a of alerts()?.active() ?? []) {
        const key = `${a.channel}\n${a.level}`;
        const entry = counts.get(key) ?? { channel: a.channel, level: a.level, n: 0 };
        entry.n++;
        counts.set(key, entry);
      }
      for (const { channel, level, n } of counts.values()) this.set({ channel, level }, n);
    },
  });
  new client.Gauge({
    name: 'paypulse_alerts_paused',
    help: '1 while alert evaluation is paused because the store cannot be read (no alerts from stale numbers).',
    registers: [registry],
    collect() {
      this.set(alerts()?.status().paused ? 1 : 0);
    },
  });
}
