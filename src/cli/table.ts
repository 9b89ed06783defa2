// The terminal view of channel health: one row per channel, one column per window.
import { defaultConfig } from '../server/config.js';
import { grade, type Thresholds, type ThresholdsWithChannels } from '../stats/severity.js';
import type { Rate } from '../types.js';
import { ownEntry } from '../ownEntry.js';

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, text: string) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);

const gradeColor = { ok: 32, warn: 33, major: 35, critical: 31, none: 90 } as const;

function cell(r: Rate | undefined, t: Thresholds): string {
  if (!r || r.rate === null) return paint(90, '     —        '.padEnd(20));
  const pct = `${(r.rate * 100).toFixed(1).padStart(5)}%`;
  const n = `n=${r.total}`.padEnd(9);
  const text = `${pct} ${n}${r.sufficient ? ' ' : '?'}`.padEnd(20);
  return paint(gradeColor[grade(r.rate, t)], text);
}

/**
 * Rows of `rates` grouped by channel, by name or (`keepOrder`) in the order given, each graded by its own
 * levels when it has some; `?` marks a rate on too few samples to trust.
 */
export function renderRates(rates: Rate[], windows: string[], t: ThresholdsWithChannels = defaultConfig.thresholds, keepOrder = false): string {
  const byChannel = new Map<string, Map<string, Rate>>();
  for (const r of rates) {
    if (!byChannel.has(r.channel)) byChannel.set(r.channel, new Map());
    byChannel.get(r.channel)!.set(r.window, r);
  }
  const head = `${'channel'.padEnd(16)}${windows.map((w) => w.padEnd(20)).join('')}started/pending`;
  const lines = [paint(1, head)];
  const rows = keepOrder ? [...byChannel] : [...byChannel].sort(([a], [b]) => a.localeCompare(b));
  for (const [channel, perWindow] of rows) {
    const first = perWindow.get(windows[0]);
    const load = first ? `${first.started}/${first.pending}` : '';
    lines.push(`${channel.padEnd(16)}${windows.map((w) => cell(perWindow.get(w), ownEntry(t.channels, channel) ?? t)).join('')}${load}`);
  }
  return lines.join('\n');
}
