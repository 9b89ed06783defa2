// `paypulse top`: the live channel table of a running service, from GET /v1/channels.
import type { Rate } from '../types.js';
import { failureText, fetchNamed } from './http.js';
import { renderRates, type Thresholds } from './table.js';

interface ChannelsReply {
  windows: string[];
  thresholds: Thresholds & { channels?: Record<string, Thresholds> };
  channels: Array<{ channel: string; rates: Record<string, Rate> }>;
}

export async function runTop(options: { target: string; once?: boolean }): Promise<void> {
  const url = new URL('/v1/channels', options.target).toString();
  let lines = 0;
  for (;;) {
    const res = await fetchNamed(url);
    if (!res.ok) throw new Error(await failureText(url, res));
    const body = (await res.json()) as ChannelsReply;
    const text = renderRates(body.channels.flatMap((c) => Object.values(c.rates)), body.windows, body.thresholds);
    if (lines > 0 && process.stdout.isTTY) process.stdout.write(`\x1b[${lines}A\x1b[J`);
    process.stdout.write(`${text}\n`);
    lines = text.split('\n').length;
    if (options.once) return;
    await new Promise((r) => setTimeout(r, 2000));
  }
}
