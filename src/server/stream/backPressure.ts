// Writes hub events to one stream client without ever buffering more than a small limit for it. Before each
// write (the event about to be written included) the client's unsent bytes are checked: an event that would
// take them past the limit is not written, and the client is "stalled". A stalled client gets nothing new;
// once its buffer empties it is caught up from the hub's replay buffer (a `gap` event if that has moved on),
// and if it stays stalled for the grace period it is disconnected. 2,000 clients that never read at 1,000
// channels otherwise held 1.6 GB: the old check ran before the write, so each still buffered a whole event
// past 1 MiB.
import type { ServerResponse } from 'node:http';
import type { EventHub, StreamEvent } from './eventHub.js';

export interface BackPressureOptions {
  hub: EventHub;
  res: ServerResponse;
  /** Unsent bytes past which nothing more is written; an empty buffer always takes one event. */
  maxBufferedBytes: number;
  /** How long a client may stay stalled before `onStalledTooLong`. */
  stallGraceMs: number;
  /** The id of the last event the client has: catching up starts after it. */
  lastSentId: number;
  onStalledTooLong: () => void;
}

export class BackPressuredWriter {
  private lastSentId: number;
  private stalledSince: number | null = null;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: BackPressureOptions) {
    this.lastSentId = options.lastSentId;
  }

  /** For the hub's subscription: written now, or later from the replay buffer, or never (gap). */
  readonly send = (event: StreamEvent): void => {
    // The hub reaches subscribers a slice at a time: a client that caught up from the replay buffer meanwhile
    // already has this event.
    if (this.closed || this.stalledSince !== null || event.id <= this.lastSentId) return;
    if (this.fits(event.frame.length)) this.writeEvent(event);
    else this.stall();
  };

  /** A frame outside the event sequence (the gap notice, a heartbeat comment): small, so written unless stalled. */
  writeSmall(frame: string): void {
    if (this.closed || this.stalledSince !== null || this.options.res.writableLength > this.options.maxBufferedBytes) return;
    this.options.res.write(frame);
  }

  get stalled(): boolean {
    return this.stalledSince !== null;
  }

  close(): void {
    this.closed = true;
    this.options.res.off('drain', this.retry);
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
  }

  private fits(bytes: number): boolean {
    const unsent = this.options.res.writableLength;
    return unsent === 0 || unsent + bytes <= this.options.maxBufferedBytes;
  }

  private writeEvent(event: StreamEvent): void {
    this.options.res.write(event.frame);
    this.lastSentId = event.id;
  }

  private stall(): void {
    this.stalledSince = Date.now();
    // 'drain' for a client that reads again at speed; the poll because a buffer below the socket's
    // high-water mark never emits 'drain', and to enforce the grace.
    this.options.res.on('drain', this.retry);
    const everyMs = Math.max(10, Math.min(250, this.options.stallGraceMs / 4));
    this.poll = setInterval(this.retry, everyMs);
    this.poll.unref();
  }

  private readonly retry = (): void => {
    if (this.closed || this.stalledSince === null) return;
    if (this.catchUp()) {
      clearInterval(this.poll!);
      this.poll = null;
      this.options.res.off('drain', this.retry);
      this.stalledSince = null;
      return;
    }
    // The grace runs from the first stall until the client has caught up completely: one that reads at a
    // trickle, always behind, is disconnected too.
    if (Date.now() - this.stalledSince >= this.options.stallGraceMs) this.options.onStalledTooLong();
  };

  /** true when every event published so far has been written. */
  private catchUp(): boolean {
    const replay = this.options.hub.since(this.lastSentId);
    if (replay.events.length > 0 && !this.fits(replay.events[0]!.frame.length)) return false;
    if (replay.gap) {
      const oldestId = replay.events[0]?.id ?? this.options.hub.lastId + 1;
      this.options.res.write(`event: gap\ndata: ${JSON.stringify({ lastEventId: this.lastSentId, oldestId })}\n\n`);
    }
    for (const event of replay.events) {
      if (!this.fits(event.frame.length)) return false;
      this.writeEvent(event);
    }
    return true;
  }
}
