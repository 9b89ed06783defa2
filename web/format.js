// Number, time and severity formatting shared by the table, the chart and the drill-down.

const counts = new Intl.NumberFormat('en-US');

/**
 * 0.9783 → "97.8 %". Near 100 % one decimal hides what matters (99.9 vs 99.5), so use two there. Truncated,
 * not rounded: 94.96 % is below the 95 % threshold and must not read "95.0 %" beside a Warn badge.
 */
export function percent(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (value >= 1) return '100 %';
  const decimals = value >= 0.99 ? 2 : 1;
  const scale = 10 ** decimals;
  // The epsilon keeps 0.85 * 1000 = 849.999… from losing a digit to binary floating point.
  const pct = Math.floor(value * 100 * scale + 1e-6) / scale;
  return `${pct.toFixed(decimals)} %`;
}

/** The 95 % interval as "95.1–99.0 %"; empty when there is no data. */
export function interval(low, high) {
  if (low === null || high === null || low === undefined || high === undefined) return '';
  return `${(low * 100).toFixed(1)}–${(high * 100).toFixed(1)} %`;
}

export function count(n) {
  return counts.format(n);
}

/**
 * The graded state of a rate against the thresholds of GET /v1/channels:
 * below warn → 'warn', below major → 'major', below critical → 'critical'; 'none' without data.
 */
export function severity(rate, thresholds) {
  if (rate === null || rate === undefined) return 'none';
  if (rate < thresholds.critical) return 'critical';
  if (rate < thresholds.major) return 'major';
  if (rate < thresholds.warn) return 'warn';
  return 'ok';
}

/** The levels a channel is graded by: its own (`thresholds.channels`) when configured, else the defaults. */
export function levelsOf(thresholds, channel) {
  return thresholds.channels?.[channel] ?? thresholds;
}

export const severityLabel = {
  ok: 'OK',
  warn: 'Warn',
  major: 'Major',
  critical: 'Critical',
  none: 'No data',
  few: 'Few samples',
};

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** Local wall-clock time with milliseconds: failures of one incident often share a second. */
/** "15:28:53": since when a state or an alert holds; the milliseconds of clockTime would be noise there. */
export function sinceTime(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function clockTime(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** "0.4 s", "12 s", "3 min": how long ago, for the data age and the drill-down. */
export function ago(ms) {
  if (ms < 0) ms = 0;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/** Window names like "1m", "5m", "1h" in seconds, to order them and pick the shortest and longest. */
export function windowSeconds(name) {
  const match = /^(\d+)(s|m|h|d)$/.exec(name);
  if (!match) return Number.POSITIVE_INFINITY;
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[match[2]];
  return Number(match[1]) * unit;
}

/**
 * A channel's slot in a palette of `size` colours, the same on every load: a hash of its name, moved to the
 * next free slot when a channel already on the chart holds it (so the colours on one chart stay distinct).
 */
export function colourSlot(channel, taken, size) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < channel.length; i++) hash = Math.imul(hash ^ channel.charCodeAt(i), 0x01000193) >>> 0;
  const home = hash % size;
  for (let step = 0; step < size; step++) {
    const slot = (home + step) % size;
    if (!taken.has(slot)) return slot;
  }
  return home;
}
