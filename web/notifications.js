// The Notifications panel: what the demo's own webhook receiver received (GET v1/demo/notifications), newest
// first — the messages an on-call would get, beside the page that explains them. A service that is not the
// demo answers `demo: false` and the panel stays hidden.
import { getJson } from './api.js';
import { sinceTime } from './format.js';

export class NotificationsPanel {
  /** @param {{ panel: HTMLElement, list: HTMLElement }} elements */
  constructor(elements) {
    this.elements = elements;
  }

  refresh() {
    return getJson('v1/demo/notifications').then(
      ({ demo, notifications }) => demo && this.update(notifications),
      () => undefined,
    );
  }

  update(notifications) {
    this.elements.panel.hidden = false;
    const items = notifications.map((n) => {
      const li = document.createElement('li');
      li.className = `notification sev-${n.transition === 'resolved' ? 'ok' : n.level}`;
      li.dataset.transition = n.transition;
      li.textContent = `${sinceTime(n.receivedAt)} ${n.summary}`;
      return li;
    });
    if (items.length === 0) {
      const li = document.createElement('li');
      li.className = 'hint';
      li.textContent = 'None received yet: the first incident starts a minute after the demo does.';
      items.push(li);
    }
    this.elements.list.replaceChildren(...items);
  }
}
