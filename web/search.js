// The channel search box. The stream carries the worst channels only once there are many; the search asks
// the server for every channel whose name contains the text, worst first, and keeps asking while the text
// stays, so the rows it shows stay current.
import { fetchChannels } from './api.js';

const DEBOUNCE_MS = 250;
const REFRESH_MS = 2_000;
const RESULT_LIMIT = 100;
// What the server accepts in a channel name: anything else cannot match, so it is not sent.
const SEARCHABLE = /^[A-Za-z0-9._:-]{1,64}$/;

export class ChannelSearch {
  /**
   * @param {{ input: HTMLInputElement, note: HTMLElement }} elements
   * @param {{ onResults(page): void, onClear(): void }} handlers  page: GET /v1/channels' answer
   */
  constructor(elements, handlers) {
    this.elements = elements;
    this.handlers = handlers;
    this.text = '';
    this.timer = null;
    // Answers can arrive out of order: only the one for the newest text counts.
    this.asked = 0;
    elements.input.addEventListener('input', () => this.schedule(DEBOUNCE_MS));
    elements.input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && elements.input.value) {
        elements.input.value = '';
        this.schedule(0);
        event.stopPropagation();
      }
    });
  }

  get active() {
    return this.text !== '';
  }

  schedule(delayMs) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delayMs);
  }

  async run() {
    const text = this.elements.input.value.trim();
    const changed = text !== this.text;
    this.text = text;
    if (!text) {
      this.elements.note.textContent = '';
      if (changed) this.handlers.onClear();
      return;
    }
    if (!SEARCHABLE.test(text)) {
      this.elements.note.textContent = 'Channel names hold only letters, digits and . _ : -';
      this.handlers.onResults({ channels: [], total: 0 });
      return;
    }
    const ask = ++this.asked;
    try {
      const page = await fetchChannels({ search: text, limit: RESULT_LIMIT });
      if (ask !== this.asked || text !== this.text) return;
      this.elements.note.textContent = page.total > page.channels.length
        ? `${page.channels.length} of ${page.total} matching channels, worst first`
        : `${page.total} matching channel${page.total === 1 ? '' : 's'}`;
      this.handlers.onResults(page);
    } catch (error) {
      if (ask === this.asked) this.elements.note.textContent = `Search failed: ${error.message}`;
    }
    // Typing meanwhile has its own run pending; only an unchanged text is refreshed.
    if (ask === this.asked && this.elements.input.value.trim() === text) this.schedule(REFRESH_MS);
  }
}
