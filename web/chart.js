// The success-rate chart: one line per channel over the last hour. The past comes from the per-minute
// history (each minute's rate drawn at the minute's end, where a 1-minute sliding window would have shown
// it); the present from the stream's shortest window, one point per event.
import uPlot from './uPlot.esm.js';
import { percent } from './format.js';

const SPAN_SEC = 3600;
const MIN_SPAN_SEC = 600;
const HEIGHT_PX = 280;

export class RateChart {
  /** @param {HTMLElement} container @param {{ thresholds: object }} config */
  constructor(container, config) {
    this.container = container;
    this.thresholds = config.thresholds;
    this.channels = [];
    // channel → palette slot, in order of first appearance: a channel keeps its colour while the page lives.
    this.colours = new Map();
    // x (epoch seconds) → Map(channel → rate|null). Seconds keep uPlot's time axis happy.
    this.points = new Map();
    this.firstLiveX = Infinity;
    this.plot = null;
    this.pending = false;
    new ResizeObserver(() => this.plot?.setSize(this.size())).observe(container);
  }

  /** Per-minute snapshots of one channel: [{ minute, rate }]. Minutes the stream already covers are skipped. */
  backfill(channel, minutes) {
    this.ensureChannel(channel);
    for (const m of minutes) {
      const x = (m.minute + 60_000) / 1000;
      if (x >= this.firstLiveX) continue;
      this.valuesAt(x).set(channel, m.rate ?? null);
    }
    this.schedule();
  }

  /** One stream event: the rate of every channel in the chart's window at server time asOf. */
  live(asOfMs, rates) {
    const x = Math.round(asOfMs / 1000);
    if (x < this.firstLiveX) {
      this.firstLiveX = x;
      // History may reach into the time the stream now covers; the live values win.
      for (const key of this.points.keys()) if (key >= x) this.points.delete(key);
    }
    const values = this.valuesAt(x);
    for (const rate of rates) {
      this.ensureChannel(rate.channel);
      values.set(rate.channel, rate.rate);
    }
    this.schedule();
  }

  valuesAt(x) {
    let values = this.points.get(x);
    if (!values) {
      values = new Map();
      this.points.set(x, values);
    }
    return values;
  }

  ensureChannel(channel) {
    if (this.colours.has(channel)) return;
    this.colours.set(channel, this.colours.size);
    this.channels = [...this.colours.keys()].sort();
    // uPlot's series are fixed at creation: a new channel means a new plot.
    this.plot?.destroy();
    this.plot = null;
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
    const xs = [...this.points.keys()].sort((a, b) => a - b);
    const newest = xs[xs.length - 1];
    const oldestKept = newest - SPAN_SEC;
    let start = 0;
    while (start < xs.length && xs[start] < oldestKept) this.points.delete(xs[start++]);
    const kept = xs.slice(start);
    const data = [kept, ...this.channels.map((c) => kept.map((x) => this.points.get(x).get(c) ?? null))];

    if (!this.plot) this.plot = new uPlot(this.options(), data, this.container);
    else this.plot.setData(data);
    // Without a hovering cursor the legend would read "—": show the newest values instead.
    if (this.plot.cursor.idx === null || this.plot.cursor.idx === undefined) this.plot.setLegend({ idx: kept.length - 1 });
    this.describe(kept);
    this.container.dataset.points = String(kept.length);
    this.container.dataset.from = String(kept[0] ?? '');
    this.container.dataset.channels = String(this.channels.length);
  }

  /** The canvas says nothing to a screen reader: the label carries the newest value of every channel. */
  describe(xs) {
    const newest = xs.length ? this.points.get(xs[xs.length - 1]) : null;
    const values = this.channels.map((c) => `${c} ${percent(newest?.get(c) ?? null)}`).join(', ');
    this.container.setAttribute(
      'aria-label',
      `Success rate of ${this.channels.length} channels over the last hour` + (values ? `; newest: ${values}` : ''),
    );
  }

  size() {
    return { width: Math.max(320, this.container.clientWidth), height: HEIGHT_PX };
  }

  options() {
    const css = getComputedStyle(document.documentElement);
    const colour = (name) => css.getPropertyValue(name).trim();
    // Series colours come from the stylesheet, which has a set for dark and one for light backgrounds.
    const palette = colour('--series').split(',').map((c) => c.trim());
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
      cursor: { drag: { x: false, y: false } },
      hooks: {
        // Dashed lines at the alert thresholds, under the series, so a dip reads against them at a glance.
        drawAxes: [(u) => drawThresholds(u, thresholdLines)],
      },
    };
  }
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
