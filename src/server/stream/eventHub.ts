// The publisher behind GET /v1/stream. Any part of the service publishes typed events (`rates`, `alert`,
// `breaker`, `store`); each gets a sequence id and is serialised once, kept in a bounded replay
// buffer, and fanned out to every subscriber. A client reconnecting with Last-Event-ID gets what it missed
// from the buffer, or learns that the gap is larger than the buffer.
// The fan-out writes to a slice of subscribers per turn of the event loop: each write copies the frame into
// a kernel socket buffer, and thousands of clients' writes in one task made every other request (/healthz
// too) wait behind them (docs/decisions/068-stream-page-and-fan-out.md).

export interface StreamEvent {
  id: number;
  type: string;
  /**
   * The SSE frame, ready to write: `id:`, `event:`, `data:` lines and the blank line. Encoded once: written
   * as a string, each client would get its own copy of the event every second (decision 068).
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

/** Subscribers written to per turn of the event loop; a hub with no more than this fans out at once. */
const listenersPerTurn = 100;

/** One event's fan-out: the subscribers it had when published, and how far the writes have got. */
interface Delivery {
  event: StreamEvent;
  targets: Listener[];
  next: number;
}

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
  /** Events published but not yet handed to every subscriber, oldest first: each subscriber gets them in order. */
  private readonly deliveries: Delivery[] = [];
  private deliverScheduled = false;
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
    this.deliveries.push({ event, targets: [...this.listeners], next: 0 });
    if (!this.deliverScheduled) this.deliver();
    return event;
  }

  /** Up to a slice of writes now; the rest on later turns, so requests are answered between slices. */
  private readonly deliver = (): void => {
    this.deliverScheduled = false;
    let budget = listenersPerTurn;
    while (this.deliveries.length > 0 && budget > 0) {
      const delivery = this.deliveries[0]!;
      const end = Math.min(delivery.targets.length, delivery.next + budget);
      for (; delivery.next < end; delivery.next++, budget--) {
        const listener = delivery.targets[delivery.next]!;
        // One that unsubscribed since the event was published gets nothing more.
        if (this.listeners.has(listener)) listener(delivery.event);
      }
      if (delivery.next === delivery.targets.length) this.deliveries.shift();
    }
    if (this.deliveries.length > 0) {
      this.deliverScheduled = true;
      setImmediate(this.deliver);
    }
  };

  /**
   * Events with an id above `lastEventId`, oldest first: the newest of them that fit in `maxBytes` (a
   * `rates` event supersedes the ones before it, so the newest are the ones worth sending); `gap` when
   * some were left out.
   */
  since(lastEventId: number, maxBytes = Infinity): Replay {
    // Ids above the newest published (a client of a previous process) cannot be replayed: start afresh.
    const after = lastEventId >= this.nextId ? -1 : lastEventId;
    let first = this.buffer.length;
    let bytes = 0;
    while (first > 0 && this.buffer[first - 1]!.id > after && bytes + this.buffer[first - 1]!.frame.length <= maxBytes) {
      first--;
      bytes += this.buffer[first]!.frame.length;
    }
    const events = this.buffer.slice(first);
    const oldestKept = events[0]?.id ?? this.nextId;
    return { events, gap: lastEventId >= this.nextId || lastEventId + 1 < oldestKept };
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
