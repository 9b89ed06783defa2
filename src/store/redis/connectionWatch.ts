// The connection's state as the service reports it (/readyz, logs), and its logs kept readable: a Redis that
// is down for an hour must not write a line per reconnect attempt. One line when the wait or outage begins,
// one at a slow interval while it lasts, one when it ends.
import type { PulseLogger } from '../../types.js';

export type ConnectionState = 'connecting' | 'ready' | 'reconnecting' | 'closed';

export interface ConnectionStatus {
  state: ConnectionState;
  /** Wall-clock ms of the last state change. */
  since: number;
  /** The newest connection error while not ready. */
  lastError?: string;
  /** Shown in logs and /readyz; never holds a password. */
  target: string;
}

export interface ConnectionWatchOptions {
  target: string;
  logger?: PulseLogger;
  /** Also called for every connection error (metrics count them); logging is left to the watch. */
  onError?: (err: Error) => void;
  /** How often a long wait or outage is logged again. Default 30 s. */
  repeatLogMs?: number;
}

export class ConnectionWatch {
  private current: ConnectionStatus;
  private repeatTimer: NodeJS.Timeout | undefined;
  private readonly repeatLogMs: number;
  private readyWaiters: Array<() => void> = [];
  private settleWaiters: Array<() => void> = [];

  constructor(private readonly options: ConnectionWatchOptions) {
    this.current = { state: 'connecting', since: Date.now(), target: options.target };
    this.repeatLogMs = options.repeatLogMs ?? 30_000;
  }

  get status(): Readonly<ConnectionStatus> {
    return this.current;
  }

  /** A human sentence for /readyz while not ready. */
  describe(): string {
    const { state, since, lastError, target } = this.current;
    const sinceText = new Date(since).toISOString();
    if (state === 'ready') return `connected to Redis at ${target}`;
    if (state === 'closed') return `connection to Redis at ${target} closed`;
    const what = state === 'connecting' ? `waiting for Redis at ${target} since ${sinceText}` : `Redis at ${target} unreachable since ${sinceText}`;
    return lastError ? `${what} (${lastError})` : what;
  }

  error(err: Error): void {
    this.options.onError?.(err);
    if (this.current.state === 'ready') this.move('reconnecting');
    const first = this.current.lastError === undefined;
    this.current.lastError = err.message || err.name;
    for (const resolve of this.settleWaiters.splice(0)) resolve();
    if (first && this.current.state !== 'closed') this.logWaiting();
  }

  ready(): void {
    if (this.current.state === 'ready') return;
    const waitedMs = Date.now() - this.current.since;
    const hadFailed = this.current.lastError !== undefined;
    this.move('ready');
    for (const resolve of [...this.readyWaiters.splice(0), ...this.settleWaiters.splice(0)]) resolve();
    if (!hadFailed) return; // connected at the first try: nothing to say
    this.options.logger?.info({ target: this.current.target, waitedMs }, `paypulse: connected to Redis at ${this.current.target}`);
  }

  primaryChanged(address: string): void {
    this.options.logger?.warn({ target: this.current.target, primary: address }, `paypulse: Redis Sentinel named a new primary, ${address}`);
  }

  closed(): void {
    this.move('closed');
    for (const resolve of this.settleWaiters.splice(0)) resolve();
  }

  /** Resolves at the first verdict of a new connection: ready, or an error. */
  whenSettled(): Promise<void> {
    if (this.current.state !== 'connecting' || this.current.lastError !== undefined) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }

  /** Resolves at the next `ready` (at once when ready already). */
  whenReady(): Promise<void> {
    if (this.current.state === 'ready') return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  private move(state: ConnectionState): void {
    if (this.repeatTimer) clearInterval(this.repeatTimer);
    this.repeatTimer = undefined;
    this.current = { state, since: Date.now(), target: this.current.target };
  }

  private logWaiting(): void {
    const log = () => this.options.logger?.warn({ target: this.current.target, error: this.current.lastError }, `paypulse: ${this.describe()}`);
    log();
    this.repeatTimer = setInterval(log, this.repeatLogMs);
    this.repeatTimer.unref();
  }
}
