// The log receiver: one line per notification through the pulse's logger (pino in the service), at a
// level that matches the alert's, so log-based alerting and audits see the same transitions.
import type { PulseLogger } from '../../types.js';
import { summaryOf, type AlertNotification } from '../notification.js';

export function logNotification(logger: PulseLogger, n: AlertNotification): void {
  const fields = { alert: n.id, channel: n.channel, dims: n.dims, level: n.level, transition: n.transition, rate: n.rate, failedRequests: n.evidence.failedRequests.map((f) => f.requestId) };
  if (n.transition === 'resolved') logger.info(fields, `paypulse alert: ${summaryOf(n)}`);
  else if (n.level === 'warn') logger.warn(fields, `paypulse alert: ${summaryOf(n)}`);
  else logger.error(fields, `paypulse alert: ${summaryOf(n)}`);
}
