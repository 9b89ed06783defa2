// The publisher behind GET /v1/stream. Any part of the service publishes typed events (`rates` now, `alert`
// and `breaker` from later issues); each gets a sequence id and is serialised once, kept in a bounded replay
// buffer, and fanned out to every subscriber. A client reconnecting with Last-Event-ID gets what it missed
// from the buffer, or learns that the gap is larger than the buffer.

export interface StreamEvent {
  id: number;
  type: string;
  /**
   * The SSE frame, ready to write: `id:`, `event:`, `data:` lines and the blank line. Encoded once: written
   * as a string, each of 2,000 clients got its own copy of the event every second (docs/benchmarks.md).
   */
  frame: Buffer;
}

export interface EventHubOptions {
  /** Events kept for replay. */
  maxEvents?: number;
  /** Bytes kept for replay; a many-channel deployment makes big `rates` events. Default 16 MiB. */
  maxBytes?: number;
}

export type Listener = (event: StreamEvent) => void;

export interface Replay {
  events: StreamEvent[];
  /** true when events after `lastEventId` were dropped from the buffer before the client came back. */
  gap: boolean;
}

export class EventHub {
  private readonly buffer: StreamEvent[] = [];
  private bufferedBytes = 0;
  private nextId = 1;
  private readonly listeners = new Set<Listener>();
  private readonly maxEvents: number;
  private readonly maxBytes: number;

  constructor(options: EventHubOptions = {}) {
    this.maxEvents = options.maxEvents ?? 300;
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  }

  publish(type: string, data: unknown): StreamEvent {
    const id = this.nextId++;
    // JSON.stringify never emits a raw newline, so one data: line carries the whole payload.
    const event: StreamEvent = { id, type, frame: Buffer.from(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`) };
    this.buffer.push(event);
    this.bufferedBytes += event.frame.length;
    while (this.buffer.length > this.maxEvents || (this.bufferedBytes > this.maxBytes && this.buffer.length > 1)) {
      this.bufferedBytes -= this.buffer.shift()!.frame.length;
    }
    for (const listener of this.listeners) listener(event);
    return event;
  }

  /** Events with an id above `lastEventId`, oldest first. */
  since(lastEventId: number): Replay {
    const oldest = this.buffer[0]?.id ?? this.nextId;
    // Ids above the newest published (a client of a previous process) cannot be replayed: start afresh.
    if (lastEventId >= this.nextId) return { events: this.buffer.slice(), gap: true };
    const events = this.buffer.filter((e) => e.id > lastEventId);
    return { events, gap: lastEventId + 1 < oldest };
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  get bufferedEvents(): number {
    return this.buffer.length;
  }

  get lastId(): number {
    return this.nextId - 1;
  }
}
