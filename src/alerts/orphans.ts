// The `resolved` of an alert whose state the coordination store lost for good (src/operatorState/restorer.ts):
// built from the last notification the fleet sent for it, so receivers and history close what they opened.
import type { AlertNotification } from './notification.js';

export function orphanResolved(last: AlertNotification, nowMs: number): AlertNotification {
  const muted = last.mutedUntil !== undefined && last.mutedUntil > nowMs;
  const { mutedUntil: _until, ...rest } = last;
  return {
    ...rest,
    transition: 'resolved',
    level: last.level,
    previousLevel: last.level,
    // No evaluation stands behind it: the rate it fired on is not what it ends on.
    rate: null,
    at: nowMs,
    muted,
    ...(muted ? { mutedUntil: last.mutedUntil } : {}),
  };
}
