// What the page shows of the channels: the stream's page (every channel, or the worst ones past the
// server's page size) or, while the search box holds text, the server's matches; the header's counts of
// every channel by state; and the last hour of history of every channel that appears, asked for in one
// request per batch of new channels rather than one per channel.
import { fetchHistoryOf } from './api.js';
import { count, severityLabel } from './format.js';
import { ChannelSearch } from './search.js';
import { countStates } from './table.js';

const HISTORY_SPAN_MS = 3_600_000;
const $ = (id) => document.getElementById(id);

export class ChannelView {
  /** @param {{ table: RatesTable, chart: RateChart, windows: string[], thresholds: object }} parts  windows shortest first */
  constructor({ table, chart, windows, thresholds }) {
    this.table = table;
    this.chart = chart;
    this.windows = windows;
    this.thresholds = thresholds;
    this.backfilled = new Set();
    this.streamChannels = [];
    this.serverNowMs = Date.now();
    // While a search is on, the table shows its results (refreshed by the search); the stream keeps the
    // chart and the header current, and its page comes back when the search is cleared.
    this.search = new ChannelSearch(
      { input: $('channel-search'), note: $('search-note') },
      {
        onResults: (page) => {
          renderPageNote(0, undefined);
          this.table.update(page.channels);
          this.backfillNew(page.channels);
        },
        onClear: () => this.table.update(this.streamChannels),
      },
    );
  }

  /**
   * A page of channels from the stream or GET /v1/channels: [{ channel, rates }] worst first, the server's
   * summary when it sent only some, and its time (history is asked for in the server's time, not the
   * browser's: the two clocks may differ).
   */
  showStreamPage(channels, summary, serverNowMs) {
    this.streamChannels = channels;
    this.serverNowMs = serverNowMs;
    if (!this.search.active) this.table.update(channels);
    renderSummary(summary ?? countStates(channels));
    // While searching, the search's own note says what the table shows.
    renderPageNote(channels.length, this.search.active ? undefined : summary);
    // Colours follow the server's channel order, not the order in which back-fills happen to answer.
    for (const { channel } of channels) this.chart.ensureChannel(channel);
    this.backfillNew(channels);
  }

  /** After a reconnection the chart has a hole where the stream was cut: history fills it. */
  refillHistory(serverNowMs) {
    this.serverNowMs = serverNowMs;
    this.backfill([...this.backfilled]);
  }

  backfillNew(channels) {
    this.backfill(channels.map((c) => c.channel).filter((c) => !this.backfilled.has(c)));
  }

  backfill(channels) {
    if (channels.length === 0) return;
    for (const channel of channels) this.backfilled.add(channel);
    const toMs = this.serverNowMs;
    fetchHistoryOf(channels, toMs - HISTORY_SPAN_MS, toMs)
      .then((histories) => histories.forEach((h) => this.chart.backfill(h.channel, h.minutes)))
      .catch((error) => console.warn(`PayPulse: no history for ${channels.length} channels`, error));
  }
}

/** The header's counts by state. */
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
