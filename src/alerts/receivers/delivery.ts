// One receiver's delivery line: a bounded queue drained one request at a time, each with a timeout and
// retries with exponential backoff on 5xx, 429, timeouts and refused connections. The evaluator only ever
// pushes, so a receiver that hangs or fails delays nobody but itself, and past `maxQueued` waiting
// notifications the newest are dropped and counted rather than held without limit.

export type DeliveryResult = 'sent' | 'retried' | 'failed' | 'dropped';

export interface HttpRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface DeliveryOptions {
  receiver: string;
  timeoutMs: number;
  retries: number;
  /** First retry waits this long, doubling each time (with ±20 % jitter so a fleet does not retry in step). */
  backoffMs?: number;
  maxQueued?: number;
  onResult?: (receiver: string, result: DeliveryResult, detail?: string) => void;
}

export class RetryableError extends Error {}

/** Sends one request; throws RetryableError for what is worth trying again. */
export async function postOnce(request: HttpRequest, timeoutMs: number): Promise<void> {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...request.headers },
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new RetryableError(`${(err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message}`);
  }
  await response.arrayBuffer().catch(() => undefined);
  if (response.status >= 500 || response.status === 429) throw new RetryableError(`HTTP ${response.status}`);
  if (response.status >= 400) throw new Error(`HTTP ${response.status}`);
}

export class DeliveryQueue {
  private readonly queue: HttpRequest[] = [];
  private draining: Promise<void> | null = null;
  private readonly backoffMs: number;
  private readonly maxQueued: number;

  constructor(private readonly options: DeliveryOptions) {
    this.backoffMs = options.backoffMs ?? 500;
    this.maxQueued = options.maxQueued ?? 1_000;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Returns at once; false when the queue was full and the request was dropped. */
  push(request: HttpRequest): boolean {
    if (this.queue.length >= this.maxQueued) {
      this.options.onResult?.(this.options.receiver, 'dropped', 'queue full');
      return false;
    }
    this.queue.push(request);
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
    return true;
  }

  /** Resolves when everything queued so far has been delivered or given up (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    for (let request = this.queue.shift(); request; request = this.queue.shift()) await this.deliver(request);
  }

  private async deliver(request: HttpRequest): Promise<void> {
    const { receiver, retries, timeoutMs, onResult } = this.options;
    for (let attempt = 0; ; attempt++) {
      try {
        await postOnce(request, timeoutMs);
        onResult?.(receiver, 'sent');
        return;
      } catch (err) {
        if (!(err instanceof RetryableError) || attempt >= retries) {
          onResult?.(receiver, 'failed', (err as Error).message);
          return;
        }
        onResult?.(receiver, 'retried', (err as Error).message);
        const waitMs = this.backoffMs * 2 ** attempt * (0.8 + Math.random() * 0.4);
        await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
      }
    }
  }
}
