// The alerts panel, the alert banner and the chart's alert markers. Active alerts come from GET /v1/alerts
// at start and again after each `alert` event of the stream (one small read per transition, so the list is
// always the server's, evidence included). Until the first read succeeds the panel says it does not know:
// "No alert is firing" is a verdict, never a default.
import { clockTime, interval, percent, severityLabel, sinceTime } from './format.js';

const TRANSITION_TEXT = { firing: 'fired', escalated: 'escalated', 'de-escalated': 'de-escalated', resolved: 'resolved', reminder: 'still firing' };
const RANK = { warn: 1, major: 2, critical: 3 };

function where(alert) {
  const dims = alert.dims ? Object.entries(alert.dims).map(([k, v]) => `${k}=${v}`).join(' ') : '';
  return dims ? `${alert.channel} · ${dims}` : alert.channel;
}

function what(alert) {
  if (alert.rule === 'silent') return 'almost no completed payments';
  if (alert.rule === 'burn') return `error budget burn (${alert.ruleId.replace(/^burn:/, '').replace(':', ' / ')})`;
  return 'success rate low';
}

function cell(text, className) {
  const td = document.createElement('td');
  if (className) td.className = className;
  td.textContent = text;
  return td;
}

export class AlertsPanel {
  /** @param {{ panel, body, empty, banner }} elements */
  constructor(elements) {
    this.elements = elements;
    this.alerts = [];
  }

  update(alerts) {
    this.alerts = [...alerts].sort((a, b) => RANK[b.level] - RANK[a.level] || a.since - b.since);
    const rows = this.alerts.map((alert) => {
      const tr = document.createElement('tr');
      tr.className = `alert sev-${alert.level}${alert.muted ? ' muted' : ''}`;
      const badge = document.createElement('span');
      badge.className = `badge sev-${alert.level}`;
      badge.textContent = severityLabel[alert.level];
      const level = document.createElement('td');
      level.append(badge);
      // The interval the level was decided on (z 4 for success-rate alerts), as the notifications print it.
      const z = alert.rate?.z && Math.abs(alert.rate.z - 1.96) >= 0.01 ? `, z ${alert.rate.z}` : '';
      const rate = alert.rate ? `${percent(alert.rate.rate)} (${interval(alert.rate.low, alert.rate.high)}${z}) · n = ${alert.rate.total} · ${alert.rate.window}` : '';
      // Ranked by the fall from each series' own baseline, not by the lowest rate.
      const focus = alert.evidence?.concentration?.[0];
      const hint = focus ? `fell most: ${Object.entries(focus.dims).map(([k, v]) => `${k}=${v}`).join(' ')} to ${percent(focus.rate)}` : '';
      const codes = (alert.evidence?.topCodes ?? []).map((c) => `${c.code} ×${c.count}`).join(', ');
      const routed = alert.routing ? routingText(alert.routing) : '';
      tr.append(
        level,
        cell(where(alert), 'alert-where'),
        cell(what(alert)),
        cell(rate, 'alert-rate'),
        cell([hint, codes].filter(Boolean).join(' · ')),
        cell(routed, 'alert-routing'),
        cell(`since ${sinceTime(alert.since)}${alert.muted ? ` · muted until ${clockTime(alert.mutedUntil)}` : ''}`),
      );
      return tr;
    });
    this.elements.body.replaceChildren(...rows);
    this.elements.empty.textContent = 'No alert is firing.';
    this.elements.empty.hidden = rows.length > 0;
    this.renderBanner();
  }

  /** The alerts could not be read: keep the rows last read, and say that the list may be out of date. */
  unavailable(error) {
    this.elements.empty.textContent = `Alerts unavailable (${error.message}).`;
    this.elements.empty.hidden = false;
  }

  renderBanner() {
    const loud = this.alerts.filter((a) => !a.muted);
    const banner = this.elements.banner;
    banner.hidden = loud.length === 0;
    if (loud.length === 0) return;
    const worst = loud[0];
    banner.className = `banner alert-banner sev-${worst.level}`;
    const others = loud.length > 1 ? ` and ${loud.length - 1} more` : '';
    banner.textContent = `${severityLabel[worst.level]} alert: ${where(worst)} — ${what(worst)}${worst.rate ? ` at ${percent(worst.rate.rate)}` : ''}${others}`;
  }
}

/** What the router did, as the notifications say it: `routed away: share 0.8 % (was 98.6 %), breaker open since 10:06`. */
export function routingText(r) {
  const parts = [];
  if (r.shareNow !== null || r.shareBefore !== null) parts.push(`share ${percent(r.shareNow)} (was ${percent(r.shareBefore)})`);
  if (r.breaker) parts.push(`breaker ${r.breaker.state} since ${sinceTime(r.breaker.since)}${r.override ? ` (${r.breaker.mode})` : ''}`);
  return `${r.drained ? 'routed away' : 'still routed'}: ${parts.join(', ')}`;
}

/** Text of a chart marker for one transition event of the stream. */
export function markerText(event) {
  return `${where(event)} ${TRANSITION_TEXT[event.transition] ?? event.transition} (${event.level})`;
}
