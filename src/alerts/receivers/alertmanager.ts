// Alertmanager receiver (API v2, POST /api/v2/alerts), behaving as Prometheus does: a firing alert is sent at
// once and re-sent every `resendEvery` with `endsAt` a few periods ahead, so Alertmanager keeps it while we
// live and resolves it by itself if we die; a resolved one is sent with `endsAt` now. Every instance re-sends
// what it sees firing, as an HA pair of Prometheus servers does; Alertmanager de-duplicates by labels.
// A level change changes the `severity` label, so the old severity is ended as the new one starts.
import { concentrationText, intervalText, percent, summaryOf, type ActiveAlert, type AlertNotification } from '../notification.js';
import type { AlertmanagerReceiverConfig, Level } from '../rules.js';
import { DeliveryQueue, type DeliveryOptions } from './delivery.js';

export interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt?: string;
  generatorURL: string;
}

const reserved = new Set(['alertname', 'channel', 'severity', 'rule']);

type Described = Pick<AlertNotification, 'alertname' | 'channel' | 'dims' | 'ruleId' | 'rule' | 'rate' | 'window' | 'evidence' | 'dashboardUrl' | 'since'>;

export function amLabels(a: Pick<AlertNotification, 'alertname' | 'channel' | 'dims' | 'ruleId'>, level: Level): Record<string, string> {
  const labels: Record<string, string> = { alertname: a.alertname, channel: a.channel, severity: level, rule: a.ruleId };
  for (const [name, value] of Object.entries(a.dims ?? {})) labels[reserved.has(name) ? `dim_${name}` : name] = value;
  return labels;
}

export function amAnnotations(a: Described, level: Level, transition: string): Record<string, string> {
  const out: Record<string, string> = {
    summary: summaryOf({ ...a, level, transition: transition as AlertNotification['transition'] }),
    window: a.window,
    since: new Date(a.since).toISOString(),
    dashboard: a.dashboardUrl,
  };
  if (a.rate) {
    out.rate = percent(a.rate.rate);
    out.interval = intervalText(a.rate);
    out.total = String(a.rate.total);
  }
  if (a.evidence.failedRequests.length > 0) out.failed_request_ids = a.evidence.failedRequests.map((f) => f.requestId).join(',');
  if (a.evidence.topCodes.length > 0) out.top_codes = a.evidence.topCodes.map((c) => `${c.code}:${c.count}`).join(',');
  if (a.evidence.concentration.length > 0) {
    out.concentration = a.evidence.concentration.map(concentrationText).join('; ');
  }
  return out;
}

export interface AlertmanagerReceiver {
  readonly name: string;
  send(n: AlertNotification): void;
  firing(active: ActiveAlert[], nowMs: number): void;
  idle(): Promise<void>;
}

export function createAlertmanagerReceiver(config: AlertmanagerReceiverConfig, delivery: Omit<DeliveryOptions, 'receiver' | 'timeoutMs' | 'retries'> = {}): AlertmanagerReceiver {
  const name = `alertmanager:${new URL(config.url).host}`;
  const queue = new DeliveryQueue({ ...delivery, receiver: name, timeoutMs: config.timeoutMs, retries: config.retries });
  const url = new URL('api/v2/alerts', config.url.endsWith('/') ? config.url : `${config.url}/`).toString();
  const validForMs = 4 * config.resendEveryMs;
  let lastResentAt = -Infinity;
  const post = (alerts: AmAlert[]) => alerts.length > 0 && queue.push({ url, body: JSON.stringify(alerts), headers: {} });
  const iso = (ms: number) => new Date(ms).toISOString();
  const alertOf = (a: Described, level: Level, transition: string, endsAtMs: number): AmAlert => ({
    labels: amLabels(a, level),
    annotations: amAnnotations(a, level, transition),
    startsAt: iso(a.since),
    endsAt: iso(endsAtMs),
    generatorURL: a.dashboardUrl,
  });
  return {
    name,
    send(n) {
      const alerts: AmAlert[] = [];
      if (n.previousLevel && n.previousLevel !== n.level && n.transition !== 'resolved') alerts.push(alertOf(n, n.previousLevel, n.transition, n.at));
      alerts.push(alertOf(n, n.level, n.transition, n.transition === 'resolved' ? n.at : n.at + validForMs));
      post(alerts);
    },
    firing(active, nowMs) {
      if (nowMs - lastResentAt < config.resendEveryMs) return;
      lastResentAt = nowMs;
      post(active.map((a) => alertOf(a, a.level, 'firing', nowMs + validForMs)));
    },
    idle: () => queue.idle(),
  };
}
