// A small server-sent-events client for tests: connects over a real socket and hands out parsed events.
import { request, type ClientRequest } from 'node:http';

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface SseClient {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The next event (of `type`, when given), skipping others; rejects after `timeoutMs`. */
  next(type?: string, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest;
    const queue: SseEvent[] = [];
    const waiters: (() => void)[] = [];
    let buffer = '';
    req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      let endedResolve: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      res.on('end', () => endedResolve());
      res.on('close', () => endedResolve());
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event: SseEvent = { event: 'message', data: '' };
          let hasData = false;
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') event.id = value;
            else if (field === 'event') event.event = value;
            else if (field === 'data') {
              event.data += (hasData ? '\n' : '') + value;
              hasData = true;
            }
          }
          if (hasData) queue.push(event);
        }
        for (const wake of waiters.splice(0)) wake();
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        ended,
        close: () => req.destroy(),
        async next(type, timeoutMs = 5_000) {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            while (queue.length > 0) {
              const event = queue.shift()!;
              if (!type || event.event === type) return event;
            }
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no ${type ?? ''} event within ${timeoutMs} ms`);
            await new Promise<void>((wake) => {
              const timer = setTimeout(wake, left);
              waiters.push(() => {
                clearTimeout(timer);
                wake();
              });
            });
          }
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}
