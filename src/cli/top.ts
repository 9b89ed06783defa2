// `paypulse top`: the live channel table of a running service, from GET /v1/channels. A service with a token
// answers reads only with it, so the token goes along (--token or PAYPULSE_TOKEN).
import type { Rate } from '../types.js';
import { failureText, fetchNamed } from './http.js';
import type { ThresholdsWithChannels } from '../stats/severity.js';
import { renderRates } from './table.js';

interface ChannelsReply {
  windows: string[];
  thresholds: ThresholdsWithChannels;
  channels: Array<{ channel: string; rates: Record<string, Rate> }>;
  /** How many channels match; more than `channels` holds when the service pages its answer. */
  total?: number;
}

export interface TopOptions {
  target: string;
  token?: string;
  once?: boolean;
  /** Where the table goes; stdout by default (redrawn in place on a terminal). */
  write?: (text: string) => void;
}

async function fetchChannels(url: string, token: string | undefined): Promise<ChannelsReply> {
  const res = await fetchNamed(url, { headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  if (res.status === 401) {
    throw new Error(`${url} answered 401: ${token ? 'the token was refused' : 'it needs a token'}; pass --token or set PAYPULSE_TOKEN`);
  }
  if (!res.ok) throw new Error(await failureText(url, res));
  return (await res.json()) as ChannelsReply;
}

function tableText(body: ChannelsReply): string {
  // The service's order: by name, or worst first once it pages.
  const text = renderRates(body.channels.flatMap((c) => Object.values(c.rates)), body.windows, body.thresholds, true);
  const total = body.total ?? body.channels.length;
  return total > body.channels.length ? `${text}\n${body.channels.length} of ${total} channels: the worst ones` : text;
}

export async function runTop(options: TopOptions): Promise<void> {
  const url = new URL('/v1/channels', options.target).toString();
  const redraw = !options.write && process.stdout.isTTY;
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  let lines = 0;
  for (;;) {
    const text = tableText(await fetchChannels(url, options.token));
    if (lines > 0 && redraw) write(`\x1b[${lines}A\x1b[J`);
    write(`${text}\n`);
    lines = text.split('\n').length;
    if (options.once) return;
    await new Promise((r) => setTimeout(r, 2000));
  }
}
