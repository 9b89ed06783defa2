// The service's HTTP API and event stream, as the page uses them. URLs are relative to the page so a
// reverse proxy may mount the service under a prefix.

// A service with a token answers 401 to every /v1 read: the page asks for the token once per tab and keeps it
// in sessionStorage (gone when the tab closes), never in the URL of the page.
const TOKEN_KEY = 'paypulse.token';

function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

function askToken() {
  const token = window.prompt('This PayPulse service needs its access token (PAYPULSE_TOKEN):') ?? '';
  if (token) sessionStorage.setItem(TOKEN_KEY, token.trim());
  else sessionStorage.removeItem(TOKEN_KEY);
  return Boolean(token);
}

function authHeaders() {
  const token = storedToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

export async function getJson(path) {
  let response = await fetch(path, { headers: { accept: 'application/json', ...authHeaders() } });
  if (response.status === 401 && askToken()) {
    response = await fetch(path, { headers: { accept: 'application/json', ...authHeaders() } });
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = await response.json();
      if (body?.error?.message) message = body.error.message;
    } catch {
      // Not JSON (a proxy's error page): the status line says enough.
    }
    throw new Error(`${path}: ${message}`);
  }
  return response.json();
}

/**
 * A page of channels, worst first: { windows, thresholds, total, channels: [{ channel, rates: { [window]: Rate } }],
 * summary? }. Without a search the server's default page (every channel, or the worst ones past its page size).
 */
export function fetchChannels({ search, limit } = {}) {
  const query = new URLSearchParams({ sort: 'worst' });
  if (search) query.set('search', search);
  if (limit) query.set('limit', String(limit));
  return getJson(`v1/channels?${query}`);
}

/** { alerts: [{ channel, dims?, rule, level, since, rate?, evidence?, muted }], paused } */
export function fetchAlerts() {
  return getJson('v1/alerts');
}

/** { breakers: [{ channel, scope, state, mode, since }] }; 404 when routing is not enabled. */
/** { from, buckets: [{ at, total, byChannel }], leaderChanges: [{ at, from, to }], breakers } */
export function fetchShares() {
  return getJson('v1/routing/shares');
}

export function fetchBreakers() {
  return getJson('v1/routing/breakers');
}

/** Newest failed requests first: { channel, window, failures: [{ requestId, at, code? }] } */
export function fetchFailures(channel, window, limit) {
  const query = new URLSearchParams({ window, limit: String(limit) });
  return getJson(`v1/channels/${encodeURIComponent(channel)}/failures?${query}`);
}

// The server's bound on one top-codes request.
const CODES_CHANNELS_PER_REQUEST = 100;

/** Top failure codes of each channel over `window`: { [channel]: { failures, sampled, codes: [{ code, count, share }] } }. */
export async function fetchCodesOf(channels, window) {
  const answers = [];
  for (let i = 0; i < channels.length; i += CODES_CHANNELS_PER_REQUEST) {
    const query = new URLSearchParams({ channels: channels.slice(i, i + CODES_CHANNELS_PER_REQUEST).join(','), window });
    answers.push(getJson(`v1/codes?${query}`));
  }
  return Object.assign({}, ...(await Promise.all(answers)).map((a) => a.channels));
}

// The server's bound on one multi-channel history request.
const HISTORY_CHANNELS_PER_REQUEST = 200;

/**
 * Per-minute snapshots of many channels, one request per 200 of them:
 * [{ channel, minutes: [{ minute, success, failure, started, rate }] }].
 */
export async function fetchHistoryOf(channels, fromMs, toMs) {
  const requests = [];
  for (let i = 0; i < channels.length; i += HISTORY_CHANNELS_PER_REQUEST) {
    const query = new URLSearchParams({
      channels: channels.slice(i, i + HISTORY_CHANNELS_PER_REQUEST).join(','),
      from: String(fromMs),
      to: String(toMs),
    });
    requests.push(getJson(`v1/history?${query}`));
  }
  return (await Promise.all(requests)).flatMap((answer) => answer.channels);
}

/**
 * Opens GET /v1/stream. EventSource reconnects by itself and sends Last-Event-ID, so the server can replay
 * what we missed; we only report its state. When the browser gives up (readyState CLOSED, e.g. after a
 * non-200 answer) we open a new one after a growing delay, because an SRE leaves this page open for hours.
 *
 * handlers: { onState(state), onEvent(type, data) }; state is 'connecting' | 'live' | 'reconnecting'.
 * Returns a function that closes the stream.
 */
export function openStream(eventTypes, handlers) {
  let source = null;
  let retryMs = 1000;
  let retryTimer = null;
  let closed = false;

  const connect = () => {
    // EventSource cannot send headers; the stream alone takes the token in its query.
    const token = storedToken();
    source = new EventSource(token ? `v1/stream?${new URLSearchParams({ token })}` : 'v1/stream');
    source.onopen = () => {
      retryMs = 1000;
      handlers.onState('live');
    };
    source.onerror = () => {
      if (closed) return;
      if (source.readyState === EventSource.CLOSED) {
        handlers.onState('reconnecting');
        retryTimer = setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 30_000);
      } else {
        handlers.onState('reconnecting');
      }
    };
    for (const type of eventTypes) {
      source.addEventListener(type, (event) => {
        let data;
        try {
          data = JSON.parse(event.data);
        } catch (error) {
          console.warn(`PayPulse: unreadable ${type} event`, error);
          return;
        }
        handlers.onEvent(type, data);
      });
    }
  };

  connect();
  return () => {
    closed = true;
    clearTimeout(retryTimer);
    source?.close();
  };
}
