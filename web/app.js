// The dashboard's wiring: first page from GET /v1/channels (worst first), the last hour of every channel shown
// from history in one request, then the stream; the search box asks the server for the channels the stream's
// worst page leaves out.
import { AlertsPanel, fetchAlerts, markerText } from './alerts.js';
import { fetchBreakers, fetchChannels, fetchHistoryOf, openStream } from './api.js';
import { RateChart } from './chart.js';
import { FailuresPanel } from './drilldown.js';
import { ago, count, severityLabel, windowSeconds } from './format.js';
import { ChannelSearch } from './search.js';
import { countStates, RatesTable } from './table.js';

const HISTORY_SPAN_MS = 3_600_000;
// Past this without a rates event the numbers are marked old: the server sends one at least every second.
const OLD_AFTER_MS = 5_000;
const STATE_TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };

const $ = (id) => document.getElementById(id);

async function loadInitial() {
  for (let attempt = 0; ; attempt++) {
    try {
      const initial = await fetchChannels();
      showBanner(null);
      return initial;
    } catch (error) {
      showBanner(`Cannot reach PayPulse (${error.message}); retrying…`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** attempt, 15_000)));
    }
  }
}

function showBanner(text) {
  const banner = $('banner');
  banner.hidden = !text;
  banner.textContent = text ?? '';
}

/** Rate[] of the stream → [{ channel, rates: { [window]: Rate } }], the shape of GET /v1/channels, in the server's order (worst first). */
function byChannel(rates) {
  const channels = new Map();
  for (const rate of rates) {
    if (rate.dims) continue; // dimension breakdowns are not part of this table
    let entry = channels.get(rate.channel);
    if (!entry) {
      entry = { channel: rate.channel, rates: {} };
      channels.set(rate.channel, entry);
    }
    entry.rates[rate.window] = rate;
  }
  return [...channels.values()];
}

/** The header's counts by state: the server's summary of every channel when it sends only some. */
function renderSummary(byState) {
  const parts = ['critical', 'major', 'warn', 'ok', 'few']
    .filter((state) => byState[state] > 0)
    .map((state) => {
      const badge = document.createElement('span');
      badge.className = `badge sev-${state}`;
      badge.textContent = `${byState[state]} ${severityLabel[state]}`;
      return badge;
    });
  $('summary').replaceChildren(...parts);
}

/** Says when the table shows the worst channels only, and how to find the rest. */
function renderPageNote(shown, summary) {
  const note = $('page-note');
  note.hidden = !summary || shown >= summary.channels;
  note.textContent = note.hidden ? '' : `the worst ${count(shown)} of ${count(summary.channels)} channels · search for the rest`;
}

async function main() {
  const initial = await loadInitial();
  const windows = [...initial.windows].sort((a, b) => windowSeconds(a) - windowSeconds(b));
  const shortest = windows[0];
  const longest = windows[windows.length - 1];
  // Started/pending are shown for one window; 5 m spans the default pending timeout, so it is the natural one.
  const countsWindow = windows.includes('5m') ? '5m' : shortest;

  const chart = new RateChart($('chart'), { thresholds: initial.thresholds });
  $('chart-hint').textContent = `last hour · per-minute history, then live ${shortest} window · dashed: alert thresholds`;

  const drilldown = new FailuresPanel(
    {
      panel: $('drilldown'), title: $('drilldown-title'), hint: $('drilldown-hint'),
      body: $('failures-body'), empty: $('failures-empty'), close: $('drilldown-close'),
    },
    {
      window: longest,
      onClose: (channel, hadFocus) => {
        table.select(null);
        chart.focus(null);
        if (hadFocus) table.focus(channel);
      },
    },
  );
  const table = new RatesTable(
    { head: $('rates-head'), body: $('rates-body'), empty: $('empty') },
    {
      windows, thresholds: initial.thresholds, countsWindow,
      onSelect: (channel) => {
        table.select(channel);
        chart.focus(channel);
        drilldown.open(channel);
      },
    },
  );
  const summaryOf = (page) => page.summary ?? countStates(page.channels, windows, initial.thresholds);
  table.update(initial.channels);
  renderSummary(summaryOf(initial));
  renderPageNote(initial.channels.length, initial.summary);

  const alertsPanel = new AlertsPanel({ panel: $('alerts'), body: $('alerts-body'), empty: $('alerts-empty'), banner: $('alert-banner') });
  const refreshAlerts = () => fetchAlerts().then((r) => {
    alertsPanel.update(r.alerts);
    return r.alerts;
  }).catch((error) => console.warn('PayPulse: alerts unavailable', error));
  // Alerts already firing when the page opens get their marker at the time they fired.
  refreshAlerts().then((alerts) => {
    for (const a of alerts ?? []) chart.mark(a.since, a.level, markerText({ ...a, transition: 'firing' }));
  });
  const onAlert = (event) => {
    chart.mark(event.at, event.level, markerText(event));
    refreshAlerts();
  };

  // History is asked for in the server's time (asOf), not the browser's: the two clocks may differ.
  const asOfs = initial.channels.flatMap((c) => Object.values(c.rates).map((r) => r.asOf));
  const serverNow = asOfs.length ? Math.max(...asOfs) : Date.now();
  const backfilled = new Set();
  // Every channel shown gets its last hour, all of them in one request (the server takes 200 at a time).
  const backfill = (channels, toMs) => {
    if (channels.length === 0) return;
    for (const channel of channels) backfilled.add(channel);
    fetchHistoryOf(channels, toMs - HISTORY_SPAN_MS, toMs)
      .then((histories) => histories.forEach((h) => chart.backfill(h.channel, h.minutes)))
      .catch((error) => console.warn(`PayPulse: no history for ${channels.length} channels`, error));
  };
  const backfillNew = (channels, toMs) => backfill(channels.map((c) => c.channel).filter((c) => !backfilled.has(c)), toMs);
  // Colours follow the server's channel order, not the order in which back-fills happen to answer.
  for (const { channel } of initial.channels) chart.ensureChannel(channel);
  backfillNew(initial.channels, serverNow);

  // While a search is on, the table shows its results (refreshed by the search); the stream keeps the
  // chart, the header and the drill-down current, and its page comes back when the search is cleared.
  let streamChannels = initial.channels;
  const search = new ChannelSearch(
    { input: $('channel-search'), note: $('search-note') },
    {
      onResults: (page) => {
        table.update(page.channels);
        backfillNew(page.channels, lastAsOf ?? serverNow);
      },
      onClear: () => table.update(streamChannels),
    },
  );

  let lastEventAt = null;
  let lastAsOf = null;
  // After a reconnection the chart has a hole where the stream was cut (a laptop lid, a proxy restart):
  // history fills it, asked for at the server time of the first event after it.
  let refillHistory = false;
  const onRates = (data) => {
    lastEventAt = performance.now();
    lastAsOf = data.asOf;
    if (refillHistory) {
      refillHistory = false;
      backfill([...backfilled], data.asOf);
    }
    const channels = byChannel(data.rates);
    streamChannels = channels;
    if (!search.active) table.update(channels);
    renderSummary(summaryOf({ channels, summary: data.summary }));
    renderPageNote(channels.length, data.summary);
    chart.live(data.asOf, data.rates.filter((r) => r.window === shortest && !r.dims));
    drilldown.onRates(data.rates, data.asOf);
    backfillNew(channels, data.asOf);
    const stale = data.rates.some((r) => r.stale);
    showBanner(stale ? 'The store is unreachable: showing the last known values.' : null);
  };

  const connection = $('connection');
  let previousState = 'connecting';
  // Breakers as the server knows them now; `breaker` events keep them current. Without routing the
  // endpoint is absent and every breaker reads closed.
  fetchBreakers()
    .then(({ breakers }) => breakers.forEach((view) => table.setBreaker(view)))
    .catch(() => undefined);

  // EventSource drops named events nobody listens to, so `gap` passes by harmlessly.
  openStream(['rates', 'breaker', 'alert'], {
    onState: (state) => {
      if (state === 'live' && previousState === 'reconnecting') refillHistory = true;
      previousState = state;
      connection.className = `pill pill-${state}`;
      connection.textContent = STATE_TEXT[state];
    },
    onEvent: (type, data) => {
      if (type === 'rates' && Array.isArray(data?.rates)) onRates(data);
      if (type === 'breaker' && data?.channel) table.setBreaker(data);
      if (type === 'alert' && data?.channel) onAlert(data);
    },
  });

  const age = $('age');
  setInterval(() => {
    if (lastEventAt === null) return;
    const ageMs = performance.now() - lastEventAt;
    age.textContent = `updated ${ago(ageMs)} ago`;
    age.title = `numbers as of ${new Date(lastAsOf).toLocaleString()} (server time)`;
    age.classList.toggle('old', ageMs > OLD_AFTER_MS);
  }, 250);
}

main().catch((error) => {
  console.error('PayPulse dashboard failed to start', error);
  showBanner(`The dashboard failed to start: ${error.message}`);
});
