// The routing panel: each channel's share of the router's decisions over the last hour (GET /v1/routing/shares,
// 5-second buckets), with a mark where the most-chosen channel changed and where a breaker left `closed`, and a
// legend saying each channel's share now and its breaker. Drawn as SVG from the server's numbers, re-read
// every 10 s: the shares move with the router, not with each outcome.
import { clockTime, colourSlot, percent, sinceTime } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 160;
const HOUR_MS = 3_600_000;
/** Buckets averaged into one point: 30 s, so a share reads as traffic moved, not as 5-second noise. */
const POINT_BUCKETS = 6;

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  return node;
}

/** Points of one channel: [at, share] per minute that saw decisions. */
export function sharePoints(buckets, channel) {
  const points = [];
  for (let i = 0; i < buckets.length; i += POINT_BUCKETS) {
    const slice = buckets.slice(i, i + POINT_BUCKETS);
    const total = slice.reduce((sum, b) => sum + b.total, 0);
    if (total === 0) continue;
    const mine = slice.reduce((sum, b) => sum + (b.byChannel[channel] ?? 0), 0);
    points.push([slice[0].at, mine / total]);
  }
  return points;
}

/** Each channel's share over the newest two buckets (10 s): Map channel → share; empty without decisions. */
export function sharesNow(report, channels) {
  const last = report.buckets.slice(-2);
  const total = last.reduce((sum, b) => sum + b.total, 0);
  const shares = new Map();
  if (total > 0) for (const channel of channels) shares.set(channel, last.reduce((sum, b) => sum + (b.byChannel[channel] ?? 0), 0) / total);
  return shares;
}

export class RoutingPanel {
  /**
   * @param {{ figure: HTMLElement, legend: HTMLElement, empty: HTMLElement }} elements
   * @param {(channel: string) => number | undefined} slotOnRateChart a channel's palette slot on the rate chart,
   *   so one channel wears one colour on the whole page
   */
  constructor(elements, slotOnRateChart = () => undefined) {
    this.elements = elements;
    this.slotOnRateChart = slotOnRateChart;
    this.colours = new Map();
  }

  colourOf(channel) {
    const palette = getComputedStyle(document.documentElement).getPropertyValue('--series').split(',').map((c) => c.trim());
    const slot = this.slotOnRateChart(channel);
    if (slot !== undefined) return palette[slot % palette.length];
    if (!this.colours.has(channel)) this.colours.set(channel, colourSlot(channel, new Set(this.colours.values()), palette.length));
    return palette[this.colours.get(channel)];
  }

  /** `report`: { from, buckets, leaderChanges, breakers } as the server answers. */
  update(report, nowMs) {
    const channels = [...new Set(report.buckets.flatMap((b) => Object.keys(b.byChannel)))].sort();
    this.elements.empty.hidden = channels.length > 0;
    this.elements.empty.textContent = 'No routing decisions in the last hour.';
    const from = nowMs - HOUR_MS;
    const x = (at) => ((at - from) / HOUR_MS) * WIDTH;
    const y = (share) => HEIGHT - share * HEIGHT;
    const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: 'none', class: 'routing-svg', role: 'img' });
    root.setAttribute('aria-label', `Share of routed payments per channel over the last hour: ${channels.join(', ')}`);
    for (const change of report.leaderChanges.filter((c) => c.from !== null)) {
      const mark = svg('line', { x1: x(change.at), x2: x(change.at), y1: 0, y2: HEIGHT, class: 'leader-mark' });
      mark.append(Object.assign(svg('title', {}), { textContent: `${clockTime(change.at)}: leader ${change.from} → ${change.to}` }));
      root.append(mark);
    }
    const breakers = report.breakers.filter((b) => b.scope === '' && b.state !== 'closed' && b.since >= from);
    for (const b of breakers) {
      const mark = svg('line', { x1: x(b.since), x2: x(b.since), y1: 0, y2: HEIGHT, class: `breaker-mark breaker-${b.state}` });
      mark.append(Object.assign(svg('title', {}), { textContent: `${clockTime(b.since)}: ${b.channel} breaker ${b.state}` }));
      root.append(mark);
    }
    for (const channel of channels) {
      const colour = this.colourOf(channel);
      const points = sharePoints(report.buckets, channel).map(([at, share]) => [x(at).toFixed(1), y(share).toFixed(1)]);
      root.append(svg('polyline', { points: points.map((p) => p.join(',')).join(' '), fill: 'none', stroke: colour, 'stroke-width': 2, 'data-channel': channel }));
      // A dot per point: a channel routed for less than a point's span still shows.
      for (const [cx, cy] of points) root.append(svg('circle', { cx, cy, r: 2.5, fill: colour }));
    }
    this.elements.figure.replaceChildren(root);
    this.elements.figure.dataset.channels = String(channels.length);
    this.renderLegend(report, channels);
    return sharesNow(report, channels);
  }

  renderLegend(report, channels) {
    const now = sharesNow(report, channels);
    const items = channels.map((channel) => {
      const li = document.createElement('li');
      li.dataset.channel = channel;
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = this.colourOf(channel);
      const breaker = report.breakers.find((b) => b.channel === channel && b.scope === '');
      const share = now.get(channel) ?? null;
      const state = breaker && breaker.state !== 'closed' ? ` · breaker ${breaker.state} since ${sinceTime(breaker.since)}` : '';
      li.append(swatch, document.createTextNode(`${channel}: ${percent(share)} of payments now${state}`));
      return li;
    });
    const changes = report.leaderChanges.filter((c) => c.from !== null).length;
    const note = document.createElement('li');
    note.className = 'hint';
    note.textContent = `${changes} leader change${changes === 1 ? '' : 's'} in the hour`;
    this.elements.legend.replaceChildren(...items, note);
  }
}
