// The "store unreachable since …" banner. While the store cannot be read the service keeps answering
// GET /v1/channels with its last snapshot (`stale: true`, `storeUnreachableSince`) and the stream sends a
// `store` event instead of `rates`; the page keeps its last rows and says, here, how old they are and why.

function sinceText(since) {
  if (!since) return 'The store is unreachable: showing the last known values.';
  const at = new Date(since);
  return `Store unreachable since ${at.toLocaleTimeString()} (${at.toISOString()}): showing the last known values.`;
}

export class StoreBanner {
  constructor(element) {
    this.element = element;
    this.since = null;
  }

  /** A GET /v1/channels answer: stale ones carry the outage's start. */
  fromChannels(answer) {
    if (answer?.stale) this.unreachable(answer.storeUnreachableSince ?? null);
    else this.reachable();
  }

  /** A `store` event of the stream. */
  fromEvent(data) {
    if (data?.reachable === false) this.unreachable(data.since ?? null);
    else if (data?.reachable === true) this.reachable();
  }

  /** A `rates` event: a fresh snapshot means the store answers again, unless its rates are the stale ones. */
  fromRates(rates) {
    if (rates.some((r) => r.stale)) this.unreachable(this.since);
    else this.reachable();
  }

  unreachable(since) {
    this.since = since ?? this.since;
    this.element.textContent = sinceText(this.since);
    this.element.hidden = false;
  }

  reachable() {
    this.since = null;
    this.element.hidden = true;
    this.element.textContent = '';
  }
}
