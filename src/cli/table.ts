// The terminal view of channel health: one row per channel with the server's verdict on it, since when it
// holds, one column per window and the top failure codes. The state is read, never graded here: it is the
// verdict the dashboard paints and the alerts decide on (docs/decisions/130-one-verdict-for-a-row-and-its-alerts.md).
import { grade, type ChannelState, type Thresholds, type ThresholdsWithChannels } from '../stats/severity.js';
import type { Rate } from '../types.js';
import { ownEntry } from '../ownEntry.js';

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, text: string) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);

const stateColor: Record<ChannelState, number> = { ok: 32, warn: 33, major: 35, critical: 31, few: 90, none: 90 };
const stateLabel: Record<ChannelState, string> = { critical: 'CRITICAL', major: 'MAJOR', warn: 'WARN', ok: 'OK', few: 'few samples', none: 'no outcomes' };

/** A row's state as GET /v1/channels sends it (src/server/routes/channelPages.ts `RowVerdict`). */
export interface RowVerdict {
  state: ChannelState;
  window?: string;
  alerted?: boolean;
}

export interface TableRow {
  channel: string;
  rates: Record<string, Rate>;
  verdict?: RowVerdict;
  /** Epoch ms the state holds since: the alert's firing time, or when this view first saw the state. */
  sinceMs?: number;
  /** `issuer_unavailable 62%, do_not_honor 21%`. */
  codes?: string;
}

export interface TableLayout {
  windows: readonly string[];
  thresholds: ThresholdsWithChannels;
  /** The window the codes and started/pending are counted over. */
  countsWindow: string;
}

/** The rate cell is coloured by the plain number (what it says); the state column by the verdict (what it means). */
function cell(r: Rate | undefined, t: Thresholds): string {
  if (!r || r.rate === null) return paint(90, '     —        '.padEnd(20));
  const pct = `${(r.rate * 100).toFixed(1).padStart(5)}%`;
  const n = `n=${r.total}`.padEnd(9);
  const text = `${pct} ${n}${r.sufficient ? ' ' : '?'}`.padEnd(20);
  return paint(stateColor[grade(r.rate, t)], text);
}

/** `WARN · 1m` when a window decided, `CRITICAL · alert` while the channel's alert fires. */
export function verdictText(verdict: RowVerdict | undefined): string {
  const state = verdict?.state ?? 'none';
  if (verdict?.alerted) return `${stateLabel[state]} · alert`;
  return verdict?.window && state !== 'ok' ? `${stateLabel[state]} · ${verdict.window}` : stateLabel[state];
}

/** "15:28:53": local time, as the dashboard says it. */
export function clockText(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** Rows in the order given, each rate cell graded by the channel's own levels when it has some; `?` marks a rate on too few samples to trust. */
export function renderTable(rows: TableRow[], layout: TableLayout): string {
  const { windows, thresholds, countsWindow } = layout;
  const head = `${'channel'.padEnd(16)}${'state'.padEnd(20)}${'since'.padEnd(16)}${windows.map((w) => w.padEnd(20)).join('')}${`started/pending`.padEnd(16)}top codes (${countsWindow})`;
  const lines = [paint(1, head)];
  for (const row of rows) {
    const state = paint(stateColor[row.verdict?.state ?? 'none'], verdictText(row.verdict).padEnd(20));
    const since = (row.sinceMs === undefined ? '' : `since ${clockText(row.sinceMs)}`).padEnd(16);
    const counts = row.rates[countsWindow];
    const load = (counts ? `${counts.started}/${counts.pending}` : '').padEnd(16);
    const levels = ownEntry(thresholds.channels, row.channel) ?? thresholds;
    lines.push(`${row.channel.padEnd(16)}${state}${since}${windows.map((w) => cell(row.rates[w], levels)).join('')}${load}${row.codes ?? ''}`.trimEnd());
  }
  return lines.join('\n');
}
