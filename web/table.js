// The table of current rates: one row per channel, one cell per window. Rows are kept and updated in
// place, not re-rendered, so a focused channel button (keyboard users) survives the per-second updates.
import { count, interval, levelsOf, percent, severity, severityLabel, sinceTime } from './format.js';

export class RatesTable {
  /**
   * @param {{ head: HTMLElement, body: HTMLElement, empty: HTMLElement }} elements
   * @param {{ windows: string[], thresholds: object, countsWindow: string, onSelect(channel): void }} config
   */
  constructor(elements, config) {
    this.elements = elements;
    this.config = config;
    this.rows = new Map();
    /** Breaker views by channel, kept for rows that appear after their breaker event. */
    this.breakers = new Map();
    /** Firing alerts' start per channel, and each channel's share of routed payments now (routing panel). */
    this.alertSince = new Map();
    this.shares = new Map();
    this.codes = new Map();
    this.selected = null;
    this.renderHead();
  }

  renderHead() {
    const { windows, countsWindow } = this.config;
    const head = this.elements.head;
    head.replaceChildren(
      th('Channel'),
      th('State'),
      th('Breaker'),
      ...windows.map((w) => th(`Last ${w}`, 'num')),
      th(`Top failure codes (${countsWindow})`, 'wrap'),
      th(`Started · pending (${countsWindow})`, 'num wrap'),
    );
  }

  /** channels: [{ channel, rates: { [window]: Rate }, verdict: { state, window?, alerted? } }], sorted by the server. */
  update(channels) {
    this.elements.empty.hidden = channels.length > 0;
    // Moving a row takes it out of the document for a moment, which drops the focus of a button in it:
    // keyboard users keep their place while the worst channels change order.
    const focused = this.elements.body.contains(document.activeElement) ? document.activeElement : null;
    const seen = new Set();
    let previous = null;
    for (const entry of channels) {
      seen.add(entry.channel);
      let row = this.rows.get(entry.channel);
      if (!row) {
        row = this.createRow(entry.channel);
        this.rows.set(entry.channel, row);
      }
      // Keep the server's order without touching rows that are already in place.
      const expectedAfter = previous ? previous.element.nextSibling : this.elements.body.firstChild;
      if (expectedAfter !== row.element) this.elements.body.insertBefore(row.element, expectedAfter);
      this.fillRow(row, entry.rates, entry.verdict);
      previous = row;
    }
    for (const [channel, row] of this.rows) {
      if (!seen.has(channel)) {
        row.element.remove();
        this.rows.delete(channel);
      }
    }
    if (focused?.isConnected && document.activeElement !== focused) focused.focus({ preventScroll: true });
    // A row created after the selection was made must show it too.
    if (this.selected) this.select(this.selected);
  }

  createRow(channel) {
    const element = document.createElement('tr');
    element.dataset.channel = channel;
    const nameCell = document.createElement('th');
    nameCell.scope = 'row';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'channel-button';
    button.textContent = channel;
    button.setAttribute('aria-controls', 'drilldown');
    button.setAttribute('aria-expanded', 'false');
    button.title = `Show the latest failed requests of ${channel}`;
    button.addEventListener('click', () => this.config.onSelect(channel));
    nameCell.append(button);

    const stateCell = document.createElement('td');
    const badge = document.createElement('span');
    badge.className = 'badge';
    const since = document.createElement('span');
    since.className = 'since';
    stateCell.append(badge, since);

    const breakerCell = document.createElement('td');
    const breaker = document.createElement('span');
    const share = document.createElement('span');
    share.className = 'share';
    breakerCell.append(breaker, share);

    const rateCells = this.config.windows.map(() => rateCell());
    const codes = document.createElement('td');
    codes.className = 'codes';
    const started = numCell();
    element.append(nameCell, stateCell, breakerCell, ...rateCells.map((c) => c.td), codes, started);
    const row = { element, button, badge, since, breaker, share, rateCells, codes, started, state: 'none', stateSince: Date.now() };
    fillBreaker(row, this.breakers.get(channel));
    this.fillShare(channel, row);
    fillCodes(row, this.codes.get(channel));
    return row;
  }

  /** The channels whose rows are shown, for the codes to be read for. */
  channels() {
    return [...this.rows.keys()];
  }

  /** Top failure codes by channel ({ failures, sampled, codes: [{ code, share }] }), over the counts window. */
  setCodes(byChannel) {
    for (const [channel, codes] of Object.entries(byChannel)) {
      this.codes.set(channel, codes);
      const row = this.rows.get(channel);
      if (row) fillCodes(row, codes);
    }
  }

  /** Firing alerts ([{ channel, since, dims? }]): a row's state is dated by its channel's alert when one fires. */
  setAlerts(alerts) {
    this.alertSince = new Map();
    for (const a of alerts) if (!a.dims && !(this.alertSince.get(a.channel) <= a.since)) this.alertSince.set(a.channel, a.since);
    for (const [, row] of this.rows) this.fillSince(row);
  }

  /** Each channel's share of routed payments now: Map channel → share (0…1). */
  setShares(shares) {
    this.shares = shares;
    for (const [channel, row] of this.rows) this.fillShare(channel, row);
  }

  fillShare(channel, row) {
    const share = this.shares.get(channel);
    row.share.textContent = share === undefined ? '' : `routed ${percent(share)}`;
    row.share.title = share === undefined ? '' : `${percent(share)} of the payments the router placed in the last 10 s`;
  }

  fillSince(row) {
    const alertSince = this.alertSince.get(row.element.dataset.channel);
    row.since.textContent = alertSince ? `alert since ${sinceTime(alertSince)}` : row.state === 'none' ? '' : `since ${sinceTime(row.stateSince)}`;
  }

  /** A channel's breaker view ({ channel, scope, state, mode, since }); only the channel's own breaker shows. */
  setBreaker(view) {
    if (!view || view.scope) return;
    this.breakers.set(view.channel, view);
    const row = this.rows.get(view.channel);
    if (row) fillBreaker(row, view);
  }

  /** `verdict`: the row's state as the server judges it, the same verdict its alerts are decided on. */
  fillRow(row, rates, verdict) {
    const { windows, countsWindow } = this.config;
    const thresholds = levelsOf(this.config.thresholds, row.element.dataset.channel);
    windows.forEach((w, i) => fillRateCell(row.rateCells[i], rates[w], thresholds));
    const counts = rates[countsWindow];
    row.started.textContent = counts ? `${count(counts.started)} · ${count(counts.pending)}` : '—';
    row.started.title = counts
      ? `${count(counts.started)} requests sent in the last ${countsWindow}, ${count(counts.pending)} still waiting for an outcome`
      : '';

    const state = verdict?.state ?? 'none';
    // Without an alert, since when this page has seen the state: the page's knowledge, said as such in the title.
    if (state !== row.state) row.stateSince = Date.now();
    row.state = state;
    this.fillSince(row);
    row.since.title = 'since this page saw the state change, or since the channel\'s alert fired';
    row.element.className = `row-${state}`;
    row.badge.className = `badge sev-${state}`;
    row.badge.textContent = verdict?.alerted ? `${severityLabel[state]} · alert` : verdict?.window && state !== 'ok' ? `${severityLabel[state]} · ${verdict.window}` : severityLabel[state];
    row.badge.title = verdict?.alerted ? "the level of the channel's firing alert" : verdict?.window ? `judged on the last ${verdict.window}, as the alerts judge it` : '';
  }

  select(channel) {
    this.selected = channel;
    for (const [name, row] of this.rows) {
      const on = name === channel;
      row.element.classList.toggle('selected', on);
      row.button.setAttribute('aria-expanded', String(on));
    }
  }

  focus(channel) {
    this.rows.get(channel)?.button.focus();
  }
}

/** Channels per state, the shape of the server's `summary`, from the verdicts the server sent. */
export function countStates(channels) {
  const counts = { channels: channels.length, critical: 0, major: 0, warn: 0, ok: 0, few: 0, none: 0 };
  for (const { verdict } of channels) counts[verdict?.state ?? 'none'] += 1;
  return counts;
}

/** `do_not_honor 62 %, insufficient_funds 21 %`: what the failures of the window are made of. */
export function codesText(codes) {
  return (codes?.codes ?? []).map((c) => `${c.code} ${Math.round(c.share * 100)} %`).join(', ');
}

function fillCodes(row, codes) {
  row.codes.textContent = codesText(codes);
  row.codes.title = codes?.failures
    ? `share of the ${codes.sampled ? `newest ${count(codes.failures)}` : count(codes.failures)} failures of the window`
    : '';
}

function fillBreaker(row, view) {
  const state = view?.state ?? 'closed';
  row.breaker.className = `breaker breaker-${state}`;
  row.breaker.dataset.breaker = state;
  row.breaker.textContent = view && view.mode !== 'auto' ? `${state} (${view.mode})` : state;
  row.breaker.title = view?.since ? `${state} since ${new Date(view.since).toLocaleString()}` : 'closed: traffic flows';
}

function th(text, className) {
  const cell = document.createElement('th');
  cell.scope = 'col';
  cell.textContent = text;
  if (className) cell.className = className;
  return cell;
}

function numCell() {
  const cell = document.createElement('td');
  cell.className = 'num';
  return cell;
}

function rateCell() {
  const td = document.createElement('td');
  td.className = 'rate num';
  const value = document.createElement('span');
  value.className = 'value';
  const ci = document.createElement('span');
  ci.className = 'ci';
  const n = document.createElement('span');
  n.className = 'n';
  td.append(value, ci, n);
  return { td, value, ci, n };
}

function fillRateCell(cell, rate, thresholds) {
  if (!rate) {
    cell.td.className = 'rate num sev-none';
    cell.value.textContent = '—';
    cell.ci.textContent = '';
    cell.n.textContent = '';
    return;
  }
  const sev = severity(rate.rate, thresholds);
  const few = rate.total > 0 && !rate.sufficient;
  cell.td.className = `rate num sev-${sev}${few ? ' few' : ''}${rate.stale ? ' stale' : ''}`;
  cell.value.textContent = percent(rate.rate);
  cell.ci.textContent = interval(rate.low, rate.high);
  cell.n.textContent = `n = ${count(rate.total)}${few ? ' · few' : ''}${rate.stale ? ' · stale' : ''}`;
  cell.td.title = rate.total
    ? `${count(rate.success)} succeeded, ${count(rate.failure)} failed in the last ${rate.window}` +
      (few ? ' — too few samples to trust the rate' : '')
    : `no outcomes in the last ${rate.window}`;
}
