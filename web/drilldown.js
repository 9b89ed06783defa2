// The drill-down: a channel's newest failed request ids, with time and code, kept current while open.
import { fetchFailures } from './api.js';
import { ago, clockTime, count } from './format.js';

const LIMIT = 20;

export class FailuresPanel {
  /**
   * @param {{ panel, title, hint, body, empty, close: HTMLElement }} elements
   * @param {{ window: string, onClose(channel, hadFocus): void }} config  window: how far back to look (the longest one).
   */
  constructor(elements, config) {
    this.elements = elements;
    this.config = config;
    this.channel = null;
    this.latestRates = null;
    this.loadedFailureCount = null;
    this.loading = false;
    this.again = false;
    elements.close.addEventListener('click', () => this.close());
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.channel) this.close();
    });
  }

  open(channel) {
    this.channel = channel;
    const { panel, title, hint, body, empty } = this.elements;
    title.textContent = `Failures of ${channel}`;
    hint.textContent = `newest ${LIMIT} failed requests in the last ${this.config.window}`;
    body.replaceChildren();
    empty.hidden = false;
    empty.textContent = 'Loading…';
    panel.hidden = false;
    this.load();
  }

  close() {
    if (!this.channel) return;
    const channel = this.channel;
    // Keyboard users closing from inside the panel go back to where they came from, not to the page top.
    const hadFocus = this.elements.panel.contains(document.activeElement);
    this.channel = null;
    this.elements.panel.hidden = true;
    this.config.onClose(channel, hadFocus);
  }

  /**
   * Called with each stream update, open or not. Reloads when the channel's failure count differs from the
   * count known when the last load started: a failure recorded between the click and the first update
   * would otherwise be taken as already shown.
   */
  onRates(rates, serverNowMs) {
    this.serverNowMs = serverNowMs;
    this.latestRates = rates;
    if (!this.channel) return;
    const failures = this.failureCount();
    if (failures !== null && failures !== this.loadedFailureCount) this.load();
  }

  failureCount() {
    const mine = this.latestRates?.find((r) => r.channel === this.channel && r.window === this.config.window && !r.dims);
    return mine ? mine.failure : null;
  }

  /** One request in flight at a time; a change seen meanwhile triggers one more load after it. */
  async load() {
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    this.loadedFailureCount = this.failureCount();
    const channel = this.channel;
    try {
      const result = await fetchFailures(channel, this.config.window, LIMIT);
      if (channel === this.channel) this.show(result.failures);
    } catch (error) {
      if (channel === this.channel) {
        // Forget what was loaded so the next stream update tries again.
        this.loadedFailureCount = null;
        this.elements.empty.hidden = false;
        this.elements.empty.textContent = `Could not load failures: ${error.message}`;
      }
    } finally {
      this.loading = false;
      if (this.again && this.channel) {
        this.again = false;
        this.load();
      }
    }
  }

  show(failures) {
    const { body, empty } = this.elements;
    const now = this.serverNowMs ?? Date.now();
    body.replaceChildren(
      ...failures.map((f) => {
        const row = document.createElement('tr');
        const id = document.createElement('td');
        id.className = 'mono';
        id.textContent = f.requestId;
        const at = document.createElement('td');
        at.className = 'mono';
        at.textContent = clockTime(f.at);
        at.title = `${ago(now - f.at)} ago`;
        const code = document.createElement('td');
        code.textContent = f.code ?? '—';
        row.append(id, at, code);
        return row;
      }),
    );
    empty.hidden = failures.length > 0;
    empty.textContent = `No failed requests in the last ${this.config.window}.`;
    // A full page may hide older failures; a shorter one is everything the window holds.
    this.elements.hint.textContent = failures.length >= LIMIT
      ? `newest ${LIMIT} failed requests in the last ${this.config.window}`
      : `all ${count(failures.length)} failed requests in the last ${this.config.window}`;
  }
}
