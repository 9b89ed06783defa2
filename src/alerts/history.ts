// Where the alerts keep their transitions: written by the instance that won each transition, read by
// GET /v1/alerts/history. history/alertTransitions.ts implements it on the history database, so the alerts
// never import history.
import type { AlertNotification } from './notification.js';

export interface AlertHistoryQuery {
  from: number;
  to: number;
  channel?: string;
  /** At most this many rows, newest first. */
  limit?: number;
}

export interface AlertHistory {
  record(n: AlertNotification): Promise<void>;
  list(query: AlertHistoryQuery): Promise<AlertNotification[]>;
  /** Deletes at most `limit` transitions older than `before`. */
  prune(before: number, limit?: number): Promise<number>;
}

export const maxHistoryRows = 1_000;
