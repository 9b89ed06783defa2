// The operator-state port: what people and the alert engine decided that is not statistics — breaker overrides,
// mutes and firing alerts — kept where a restart of the live store (Redis restarted empty) cannot erase it, so
// an instance can put it back (src/operatorState/). PostgreSQL implements it (src/history/operatorState.ts);
// every row mirrors one coordination-store key, rebuilt from `kind`, `channel` and `scope` by the keys module.

/** The coordination kind whose key a row mirrors. */
export type KeptKind = 'breaker' | 'mute' | 'alert';

export interface KeptState {
  kind: KeptKind;
  channel: string;
  /** As in the coordination key: a breaker's dims series, an alert's `<ruleId>/<series>`, '' for a mute. */
  scope: string;
  /** What the coordination store holds under the key: written back as is. */
  value: string;
  /** What the restorer needs besides the value: a firing alert's last notification (JSON); '' otherwise. */
  note: string;
  /** Clock ms when the row stops counting (a mute's end, an override's expiry); null: until dropped. */
  expiresAt: number | null;
}

export interface OperatorStateStore {
  /** Writes the row, replacing the one of the same kind, channel and scope. */
  keep(namespace: string, state: KeptState): Promise<void>;
  /**
   * Deletes the row — when `onlyIfValue` is given, only if it still holds that value. True only for the call that
   * deleted it, so of concurrent callers exactly one acts on it.
   */
  drop(namespace: string, kind: KeptKind, channel: string, scope: string, onlyIfValue?: string): Promise<boolean>;
  /** The namespace's rows unexpired at `nowMs` (at most `limit`), deleting expired ones. */
  list(namespace: string, nowMs: number, limit: number): Promise<KeptState[]>;
}
