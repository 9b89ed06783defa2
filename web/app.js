// The dashboard's wiring: first page from GET /v1/channels (worst first), the last hour of every channel shown
// from history in one request, then the stream; the search box asks the server for the channels the stream's
// worst page leaves out.
import { AlertsPanel, markerText } from './alerts.js';
import { fetchAlerts, fetchBreakers, fetchChannels, fetchCodesOf, fetchShares, openStream } from './api.js';
import { RoutingPanel } from './routingPanel.js';
import { NotificationsPanel } from './notifications.js';
import { ChannelView } from './channelView.js';
import { RateChart } from './chart.js';
import { StoreBanner } from './storeBanner.js';
import { FailuresPanel } from './drilldown.js';
import { ago, windowSeconds } from './format.js';
import { RatesTable } from './table.js';

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

/**
 * Rate[] and verdicts of the stream → [{ channel, rates: { [window]: Rate }, verdict }], the shape of
 * GET /v1/channels, in the server's order (worst first).
 */
function byChannel(rates, verdicts) {
  const channels = new Map();
  for (const rate of rates) {
    if (rate.dims) continue; // dimension breakdowns are not part of this table
    let entry = channels.get(rate.channel);
    if (!entry) {
      entry = { channel: rate.channel, rates: {}, verdict: verdicts?.[rate.channel] };
      channels.set(rate.channel, entry);
    }
    entry.rates[rate.window] = rate;
  }
  return [...channels.values()];
}

async function main() {
  const initial = await loadInitial();
  const windows = [...initial.windows].sort((a, b) => windowSeconds(a) - windowSeconds(b));
  const shortest = windows[0];
  const longest = windows[windows.length - 1];
  // Started/pending are shown for one window; 5 m spans the default pending timeout, so it is the natural one.
  const countsWindow = windows.includes('5m') ? '5m' : shortest;

  const storeBanner = new StoreBanner($('store-banner'));
  storeBanner.fromChannels(initial);
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
  // History is asked for in the server's time (asOf), not the browser's: the two clocks may differ.
  const asOfs = initial.channels.flatMap((c) => Object.values(c.rates).map((r) => r.asOf));
  const view = new ChannelView({ table, chart, windows, thresholds: initial.thresholds });
  view.showStreamPage(initial.channels, initial.summary, asOfs.length ? Math.max(...asOfs) : Date.now());

  const alertsPanel = new AlertsPanel({ panel: $('alerts'), body: $('alerts-body'), empty: $('alerts-empty'), banner: $('alert-banner') });
  const refreshAlerts = () => fetchAlerts().then((r) => {
    alertsPanel.update(r.alerts);
    table.setAlerts(r.alerts);
    return r.alerts;
  }).catch((error) => alertsPanel.unavailable(error));
  // Alerts already firing when the page opens get their marker at the time they fired.
  refreshAlerts().then((alerts) => {
    for (const a of alerts ?? []) chart.mark(a.since, a.level, markerText({ ...a, transition: 'firing' }));
  });
  const notifications = new NotificationsPanel({ panel: $('notifications'), list: $('notifications-list') });
  notifications.refresh();
  setInterval(() => notifications.refresh(), 5_000);
  const onAlert = (event) => {
    chart.mark(event.at, event.level, markerText(event));
    refreshAlerts();
    // Delivery follows the transition by a moment: read the receiver again once it has had it.
    setTimeout(() => notifications.refresh(), 1_000);
  };

  let lastEventAt = null;
  let lastAsOf = null;
  const routingPanel = new RoutingPanel({ figure: $('routing-chart'), legend: $('routing-legend'), empty: $('routing-empty') }, (channel) => chart.colours.get(channel));
  const refreshRouting = () => fetchShares()
    .then((report) => table.setShares(routingPanel.update(report, lastAsOf ?? Date.now())))
    .catch((error) => {
      $('routing-empty').textContent = `Routing unavailable (${error.message}).`;
      $('routing-empty').hidden = false;
    });
  refreshRouting();
  setInterval(refreshRouting, 10_000);
  // The codes of the rows shown, every 5 s: the server keeps them as long, so more tabs cost no more reads.
  const refreshCodes = () => fetchCodesOf(table.channels(), countsWindow)
    .then((codes) => table.setCodes(codes))
    .catch((error) => console.warn('PayPulse: no failure codes', error));
  refreshCodes();
  setInterval(refreshCodes, 5_000);
  // After a reconnection the chart has a hole where the stream was cut (a laptop lid, a proxy restart):
  // history fills it, asked for at the server time of the first event after it.
  let refillHistory = false;
  const onRates = (data) => {
    lastEventAt = performance.now();
    lastAsOf = data.asOf;
    if (refillHistory) {
      refillHistory = false;
      view.refillHistory(data.asOf);
    }
    view.showStreamPage(byChannel(data.rates, data.verdicts), data.summary, data.asOf);
    chart.live(data.asOf, data.rates.filter((r) => r.window === shortest && !r.dims));
    drilldown.onRates(data.rates, data.asOf);
    storeBanner.fromRates(data.rates);
  };

  const connection = $('connection');
  let previousState = 'connecting';
  // Breakers as the server knows them now; `breaker` events keep them current. Without routing the
  // endpoint is absent and every breaker reads closed.
  fetchBreakers()
    .then(({ breakers }) => breakers.forEach((view) => table.setBreaker(view)))
    .catch(() => undefined);

  // EventSource drops named events nobody listens to, so `gap` passes by harmlessly.
  openStream(['rates', 'breaker', 'alert', 'store'], {
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
      if (type === 'store') storeBanner.fromEvent(data);
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
