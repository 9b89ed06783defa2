// Channels whose part of the store is down while the rest of it answers (a Redis Cluster master killed). The
// recorder holds their outcomes in the buffer, behind their older ones, until the probe writes them; every other
// channel records as before. Bounded by the channel limit: NameLimits admits no more names than maxChannels.
import type { PulseLogger } from '../types.js';

export class DownChannels {
  private readonly channels = new Set<string>();

  constructor(private readonly logger?: PulseLogger) {}

  get size(): number {
    return this.channels.size;
  }

  has(channel: string): boolean {
    return this.channels.has(channel);
  }

  /** The store did not answer for these while it answered others. */
  down(channels: string[], err: unknown): void {
    const wasWhole = this.channels.size === 0;
    for (const channel of channels) this.channels.add(channel);
    if (wasWhole && channels.length > 0) {
      this.logger?.warn({ err: String(err), channels: channels.length }, 'paypulse: part of the store unavailable, buffering the outcomes of its channels (fail open)');
    }
  }

  /** The store wrote these: they are up. */
  answered(channels: Iterable<string>): void {
    if (this.channels.size === 0) return;
    for (const channel of channels) this.channels.delete(channel);
    if (this.channels.size === 0) this.logger?.info({}, 'paypulse: every channel writable again');
  }

  /** Removes the down channels' entries from `byChannel` and returns them. */
  takeFrom<T>(byChannel: Map<string, T>): T[] {
    const taken: T[] = [];
    for (const [channel, value] of byChannel) {
      if (!this.channels.has(channel)) continue;
      taken.push(value);
      byChannel.delete(channel);
    }
    return taken;
  }
}
