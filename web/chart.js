// The success-rate chart: one line per channel over the last hour. The past comes from the per-minute
// history (each minute's rate drawn at the minute's end, where a 1-minute sliding window would have shown
// it); the present from the stream's shortest window, one point per event.
import uPlot from './uPlot.esm.js';
import { colourSlot, percent } from './format.js';

const SPAN_SEC = 3600;
const MIN_SPAN_SEC = 600;
const HEIGHT_PX = 280;

export class RateChart {
  /** @param {HTMLElement} container @param {{ thresholds: object }} config */
  constructor(container, config) {
    this.container = container;
    this.thresholds = config.thresholds;
    this.channels = [];
    // channel → palette slot, from its name (format.js colourSlot): the same colour on every load, kept while
    // the page lives.
    this.colours = new Map();
    // channel → the x of its newest point, to forget a channel once the hour no longer holds it.
    this.newestX = new Map();
    // Two stores keyed by x (epoch seconds, uPlot's time unit) → Map(channel → rate|null): minute points
    // from history and second points from the stream. They merge at drawing time (see merged()).
    this.historyValues = new Map();
    this.liveValues = new Map();
    this.liveXs = []; // sorted
    this.plot = null;
    this.pending = false;
    this.focused = null;
    // Alert transitions drawn as vertical lines: [{ x (epoch s), level, text }], oldest first, bounded.
    this.markers = [];
    new ResizeObserver(() => this.plot?.setSize(this.size())).observe(container);
  }

  /** Per-minute snapshots of one channel: [{ minute, rate }]. May be called again to fill a gap. */
  backfill(channel, minutes) {
    this.ensureChannel(channel);
    for (const m of minutes) {
      const x = (m.minute + 60_000) / 1000;
      valuesAt(this.historyValues, x).set(channel, m.rate ?? null);
      this.seen(channel, x);
    }
    this.schedule();
  }

  /** One stream event: the rate of every channel in the chart's window at server time asOf. */
  live(asOfMs, rates) {
    const x = Math.round(asOfMs / 1000);
    if (!this.liveValues.has(x)) insertSorted(this.liveXs, x);
    const values = valuesAt(this.liveValues, x);
    for (const rate of rates) {
      this.seen(rate.channel, x);
      values.set(rate.channel, rate.rate);
    }
    // Trimmed here too, not only when drawing: a hidden tab gets no animation frames for hours.
    if (this.liveXs.length > 2 * SPAN_SEC) this.trim(this.liveXs[this.liveXs.length - 1] - SPAN_SEC);
    this.schedule();
  }

  /**
   * Every x to draw, sorted: all live points, and the history minutes (x-60 s, x] that no live point falls
   * in. Before the stream starts and across a disconnection, history fills in; elsewhere the finer live
   * points win.
   */
  merged() {
    const xs = [...this.liveXs];
    for (const x of this.historyValues.keys()) {
      const i = firstAbove(this.liveXs, x - 60);
      if (i === this.liveXs.length || this.liveXs[i] > x) xs.push(x);
    }
    return xs.sort((a, b) => a - b);
  }

  trim(oldestKept) {
    for (const x of this.historyValues.keys()) if (x < oldestKept) this.historyValues.delete(x);
    const drop = firstAbove(this.liveXs, oldestKept - 1);
    for (const x of this.liveXs.splice(0, drop)) this.liveValues.delete(x);
    this.forgetChannelsBefore(oldestKept);
  }

  // A channel that left the page (past the worst page, or gone quiet) keeps its line until its newest point
  // ages out of the hour; then it goes, so hours of changes in the worst set never grow the chart.
  forgetChannelsBefore(oldestKept) {
    const gone = this.channels.filter((c) => this.newestX.has(c) && this.newestX.get(c) < oldestKept);
    if (gone.length === 0) return;
    for (const channel of gone) {
      this.colours.delete(channel);
      this.newestX.delete(channel);
    }
    this.channels = this.channels.filter((c) => this.colours.has(c));
    this.plot?.destroy();
    this.plot = null;
  }

  seen(channel, x) {
    this.ensureChannel(channel);
    if (!(this.newestX.get(channel) >= x)) this.newestX.set(channel, x);
  }

  ensureChannel(channel) {
    if (this.colours.has(channel)) return;
    this.colours.set(channel, colourSlot(channel, new Set(this.colours.values()), this.palette().length));
    this.channels = [...this.colours.keys()].sort();
    // uPlot's series are fixed at creation: a new channel means a new plot.
    this.plot?.destroy();
    this.plot = null;
  }

  /** One alert transition at server time `atMs`, drawn as a vertical line in the level's colour. */
  mark(atMs, level, text) {
    this.markers.push({ x: atMs / 1000, level, text });
    if (this.markers.length > 200) this.markers.shift();
    this.container.dataset.markers = String(this.markers.length);
    this.container.title = this.markers.slice(-5).map((m) => m.text).join('\n');
    this.schedule();
  }

  /** Brings one channel's line forward (the one being drilled into); null: all equal again. */
  focus(channel) {
    this.focused = channel;
    this.applyFocus();
  }

  applyFocus() {
    if (!this.plot) return;
    const index = this.focused === null ? -1 : this.channels.indexOf(this.focused);
    this.plot.setSeries(index < 0 ? null : index + 1, { focus: true });
  }

  /** Redraw at most once a frame, however many events and back-fills arrive. */
  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render();
    });
  }

  render() {
    const newest = Math.max(this.liveXs[this.liveXs.length - 1] ?? -Infinity, ...this.historyValues.keys());
    if (Number.isFinite(newest)) this.trim(newest - SPAN_SEC);
    const xs = this.merged();
    const valueAt = (x, channel) => (this.liveValues.get(x) ?? this.historyValues.get(x)).get(channel) ?? null;
    const data = [xs, ...this.channels.map((c) => xs.map((x) => valueAt(x, c)))];

    if (!this.plot) {
      this.plot = new uPlot(this.options(), data, this.container);
      this.applyFocus();
    } else {
      this.plot.setData(data);
    }
    // Without a hovering cursor the legend would read "—": show the newest values instead.
    if (this.plot.cursor.idx === null || this.plot.cursor.idx === undefined) this.plot.setLegend({ idx: xs.length - 1 });
    this.describe(xs, valueAt);
    this.container.dataset.points = String(xs.length);
    this.container.dataset.channels = String(this.channels.length);
  }

  /** The canvas says nothing to a screen reader: the label carries the newest value of every channel. */
  describe(xs, valueAt) {
    const newest = xs[xs.length - 1];
    const values = this.channels.map((c) => `${c} ${percent(newest === undefined ? null : valueAt(newest, c))}`).join(', ');
    this.container.setAttribute(
      'aria-label',
      `Success rate of ${this.channels.length} channels over the last hour` + (values ? `; newest: ${values}` : ''),
    );
  }

  size() {
    return { width: Math.max(320, this.container.clientWidth), height: HEIGHT_PX };
  }

  /** Series colours come from the stylesheet, which has a set for dark and one for light backgrounds. */
  palette() {
    return getComputedStyle(document.documentElement).getPropertyValue('--series').split(',').map((c) => c.trim());
  }

  options() {
    const css = getComputedStyle(document.documentElement);
    const colour = (name) => css.getPropertyValue(name).trim();
    const palette = this.palette();
    const axis = {
      stroke: colour('--muted'),
      grid: { stroke: colour('--grid'), width: 1 },
      ticks: { stroke: colour('--grid'), width: 1 },
    };
    const thresholdLines = [
      [this.thresholds.warn, colour('--warn')],
      [this.thresholds.major, colour('--major')],
      [this.thresholds.critical, colour('--critical')],
    ];
    return {
      ...this.size(),
      scales: {
        // The newest hour at most; at least 10 minutes, so a just-started demo is not a blur of ms ticks.
        x: { time: true, range: (u, min, max) => [Math.min(min, max - MIN_SPAN_SEC), max] },
        // Rates of healthy channels sit at 97–100 %: a fixed 0–100 % axis would flatten a real dip.
        y: { range: (u, min, max) => [yFloor(min), 1.0005] },
      },
      axes: [{ ...axis, space: 90 }, { ...axis, size: 60, values: (u, ticks) => ticks.map((t) => `${Math.round(t * 1000) / 10} %`) }],
      series: [
        { label: 'Time' },
        ...this.channels.map((channel) => ({
          label: channel,
          stroke: palette[this.colours.get(channel) % palette.length],
          width: 2,
          spanGaps: false,
          // Lines only, except a value with no neighbours (one minute of traffic), which a line cannot show.
          points: { show: true, size: 6, filter: isolatedPoints },
          value: (u, v) => percent(v),
        })),
      ],
      legend: { live: true },
      focus: { alpha: 0.25 },
      cursor: { drag: { x: false, y: false } },
      hooks: {
        // Dashed lines at the alert thresholds, under the series, so a dip reads against them at a glance.
        drawAxes: [(u) => drawThresholds(u, thresholdLines)],
        draw: [(u) => drawMarkers(u, this.markers, { warn: colour('--warn'), major: colour('--major'), critical: colour('--critical') })],
      },
    };
  }
}

function valuesAt(store, x) {
  let values = store.get(x);
  if (!values) {
    values = new Map();
    store.set(x, values);
  }
  return values;
}

/** Index of the first element of the sorted array greater than value (its length when none is). */
function firstAbove(sorted, value) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] > value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Events arrive in order, so this is an append but for the rare late one. */
function insertSorted(sorted, value) {
  sorted.splice(firstAbove(sorted, value), 0, value);
}

function isolatedPoints(u, seriesIdx) {
  const ys = u.data[seriesIdx];
  const isolated = [];
  for (let i = 0; i < ys.length; i++) {
    if (ys[i] === null || ys[i] === undefined) continue;
    const before = i > 0 ? ys[i - 1] : null;
    const after = i < ys.length - 1 ? ys[i + 1] : null;
    if ((before === null || before === undefined) && (after === null || after === undefined)) isolated.push(i);
  }
  return isolated;
}

function yFloor(min) {
  if (min === null || min === undefined || !Number.isFinite(min)) return 0.9;
  const floor = Math.floor((Math.min(min, 0.9) - 0.02) * 20) / 20;
  return Math.max(0, floor);
}

function drawThresholds(u, lines) {
  const { ctx } = u;
  const { left, top, width, height } = u.bbox;
  ctx.save();
  ctx.lineWidth = Math.max(1, devicePixelRatio);
  ctx.setLineDash([6 * devicePixelRatio, 6 * devicePixelRatio]);
  for (const [value, colour] of lines) {
    const y = Math.round(u.valToPos(value, 'y', true));
    if (y < top || y > top + height) continue;
    ctx.strokeStyle = colour;
    ctx.globalAlpha = 0.7;
    ctx.beginPath();
    ctx.moveTo(left, y);
    ctx.lineTo(left + width, y);
    ctx.stroke();
  }
  ctx.restore();
}

function drawMarkers(u, markers, colours) {
  const { ctx } = u;
  const { left, top, width, height } = u.bbox;
  ctx.save();
  ctx.lineWidth = 2 * devicePixelRatio;
  for (const m of markers) {
    const x = Math.round(u.valToPos(m.x, 'x', true));
    if (x < left || x > left + width) continue;
    ctx.strokeStyle = colours[m.level] ?? colours.major;
    ctx.globalAlpha = 0.8;
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
  }
  ctx.restore();
}
