// What `paypulse top` and the demo's terminal table show, read from the service as the dashboard reads it:
// GET /v1/channels for the rows and their verdicts, GET /v1/alerts for since when an alert fires, GET /v1/codes
// for the top failure codes (the server keeps them a few seconds, so a terminal polling costs it no more reads
// than an open dashboard). A service with a token answers reads only with it, so the token goes along.
import type { Rate } from '../types.js';
import type { ThresholdsWithChannels } from '../stats/severity.js';
import { parseWindow } from '../stats/windows.js';
import { failureText, fetchNamed } from './http.js';
import { renderTable, type RowVerdict, type TableRow } from './table.js';

interface ChannelsReply {
  windows: string[];
  thresholds: ThresholdsWithChannels;
  channels: Array<{ channel: string; rates: Record<string, Rate>; verdict?: RowVerdict }>;
  /** How many channels match; more than `channels` holds when the service pages its answer. */
  total?: number;
}

interface AlertsReply {
  alerts: Array<{ channel: string; dims?: unknown; since: number }>;
}

interface CodesReply {
  channels: Record<string, { codes: Array<{ code: string; share: number }> }>;
}

/** The server's bound on one GET /v1/codes (src/server/routes/topCodes.ts `maxCodeChannels`). */
const codeChannelsPerRequest = 100;

export class TokenError extends Error {
  constructor(url: string, sent: boolean) {
    super(`${url} answered 401: ${sent ? 'the token was refused' : 'it needs a token'}; pass --token or set PAYPULSE_TOKEN`);
    this.name = 'TokenError';
  }
}

/** `issuer_unavailable 62%, do_not_honor 21%`: what the failures of the window are made of. */
export function codesText(codes: Array<{ code: string; share: number }>): string {
  return codes.map((c) => `${c.code} ${Math.round(c.share * 100)}%`).join(', ');
}

export function createTopView(target: string, token: string | undefined) {
  const headers = { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  async function getJson<T>(path: string): Promise<T> {
    const url = new URL(path, target).toString();
    const res = await fetchNamed(url, { headers });
    if (res.status === 401) throw new TokenError(url, Boolean(token));
    if (!res.ok) throw new Error(await failureText(url, res));
    return (await res.json()) as T;
  }

  async function codesOf(channels: string[], window: string): Promise<CodesReply['channels']> {
    const answers: Array<Promise<CodesReply>> = [];
    for (let i = 0; i < channels.length; i += codeChannelsPerRequest) {
      const query = new URLSearchParams({ channels: channels.slice(i, i + codeChannelsPerRequest).join(','), window });
      answers.push(getJson<CodesReply>(`/v1/codes?${query}`));
    }
    return Object.assign({}, ...(await Promise.all(answers)).map((a) => a.channels));
  }

  // Without an alert, since when this view has seen a row's state: its own knowledge, as the dashboard's is.
  // Only the rows of the last answer are kept, so the memory is bounded by a page.
  let seen = new Map<string, { state: string; sinceMs: number }>();

  return {
    /** The table as it stands now, with a line saying how many channels a paged answer left out. */
    async text(nowMs = Date.now()): Promise<string> {
      const body = await getJson<ChannelsReply>('/v1/channels');
      // The dashboard's counts window, so the terminal and the page show the same codes.
      const countsWindow = body.windows.includes('5m') ? '5m' : [...body.windows].sort((a, b) => parseWindow(a) - parseWindow(b))[0]!;
      const names = body.channels.map((c) => c.channel);
      const [alerts, codes] = await Promise.all([getJson<AlertsReply>('/v1/alerts'), names.length ? codesOf(names, countsWindow) : ({} as CodesReply['channels'])]);
      const alertSince = new Map<string, number>();
      for (const a of alerts.alerts) if (!a.dims && !(alertSince.get(a.channel)! <= a.since)) alertSince.set(a.channel, a.since);
      const nextSeen = new Map<string, { state: string; sinceMs: number }>();
      const rows: TableRow[] = body.channels.map((c) => {
        const state = c.verdict?.state ?? 'none';
        const before = seen.get(c.channel);
        const held = before?.state === state ? before : { state, sinceMs: nowMs };
        nextSeen.set(c.channel, held);
        const sinceMs = alertSince.get(c.channel) ?? (state === 'none' ? undefined : held.sinceMs);
        return { channel: c.channel, rates: c.rates, verdict: c.verdict, sinceMs, codes: codesText(codes[c.channel]?.codes ?? []) };
      });
      seen = nextSeen;
      // The service's order: by name, or worst first once it pages.
      const text = renderTable(rows, { windows: body.windows, thresholds: body.thresholds, countsWindow });
      const total = body.total ?? body.channels.length;
      return total > body.channels.length ? `${text}\n${body.channels.length} of ${total} channels: the worst ones` : text;
    },
  };
}
