// A Grafana dashboard over the metrics the service exports, for `paypulse dashboard`: an SRE imports it
// (Dashboards → Import, or file provisioning) and picks the Prometheus data source at import time. Every
// query reads a metric of /metrics; none needs a recording rule, so it works before `paypulse rules` is loaded.
import type { Thresholds } from '../stats/severity.js';

interface Target {
  expr: string;
  legendFormat: string;
}

interface Panel {
  title: string;
  description: string;
  type: 'timeseries' | 'table' | 'stat';
  unit: string;
  targets: Target[];
  /** Half (12) or full (24) width. */
  width: 12 | 24;
  thresholds?: Array<{ value: number | null; color: string }>;
}

const channelFilter = 'channel=~"$channel"';

/** The success-rate levels, coloured as the PayPulse page colours them. */
function levelSteps(levels: Thresholds): Panel['thresholds'] {
  return [
    { value: null, color: 'red' },
    { value: levels.critical, color: 'orange' },
    { value: levels.major, color: 'yellow' },
    { value: levels.warn, color: 'green' },
  ];
}

function panels(levels: Thresholds): Panel[] {
  return [
    {
      title: 'Success rate by channel',
      description: 'Successes / terminal outcomes in the chosen window (paypulse_success_ratio), with the alert levels.',
      type: 'timeseries', unit: 'percentunit', width: 24, thresholds: levelSteps(levels),
      targets: [{ expr: `max by (channel) (paypulse_success_ratio{window="$window", ${channelFilter}})`, legendFormat: '{{channel}}' }],
    },
    {
      title: 'Outcomes per second by channel and status',
      description: 'Outcomes handed to the store, summed over instances (before de-duplication).',
      type: 'timeseries', unit: 'reqps', width: 12,
      targets: [{ expr: `sum by (channel, status) (rate(paypulse_outcomes_total{${channelFilter}}[$__rate_interval]))`, legendFormat: '{{channel}} {{status}}' }],
    },
    {
      title: 'Failures by code',
      description: 'Failed outcomes per second by decline code: which codes an incident is made of (10 codes a channel, then other).',
      type: 'timeseries', unit: 'reqps', width: 12,
      targets: [{ expr: `topk(10, sum by (channel, code) (rate(paypulse_outcomes_total{status="failure", ${channelFilter}}[$__rate_interval])))`, legendFormat: '{{channel}} {{code}}' }],
    },
    {
      title: 'Share of routed traffic by channel',
      description: 'Each channel\'s share of the router\'s decisions, summed over instances.',
      type: 'timeseries', unit: 'percentunit', width: 12,
      targets: [{
        expr: `sum by (channel) (rate(paypulse_route_decisions_total{${channelFilter}}[$__rate_interval])) / ignoring (channel) group_left sum(rate(paypulse_route_decisions_total[$__rate_interval]))`,
        legendFormat: '{{channel}}',
      }],
    },
    {
      title: 'Routing decisions by reason',
      description: 'best, explored (a random exploration, or a look at a channel that was better before its break), probe (a half-open breaker\'s), fail-open (every candidate\'s breaker was open), static (the experiment\'s arm), cold-start, breaker-open:<channel>, override:<channel>.',
      type: 'timeseries', unit: 'reqps', width: 12,
      targets: [{ expr: 'sum by (reason) (rate(paypulse_route_decisions_total[$__rate_interval]))', legendFormat: '{{reason}}' }],
    },
    {
      title: 'Breakers',
      description: '0 closed, 1 half-open, 2 open, by channel and scope (the worst any instance reports).',
      type: 'timeseries', unit: 'none', width: 12,
      targets: [{ expr: `max by (channel, scope) (paypulse_breaker_state{${channelFilter}})`, legendFormat: '{{channel}} {{scope}}' }],
    },
    {
      title: 'Alerts firing',
      description: 'Firing alerts by channel and level (muted ones included).',
      type: 'timeseries', unit: 'none', width: 12,
      targets: [{ expr: `max by (channel, level) (paypulse_alerts_firing{${channelFilter}})`, legendFormat: '{{channel}} {{level}}' }],
    },
    {
      title: 'Store up and outcomes waiting',
      description: 'paypulse_store_up is 0 while outcomes are buffered (fail open); spilled ones wait on disk for Redis.',
      type: 'timeseries', unit: 'none', width: 12,
      targets: [
        { expr: 'min(paypulse_store_up)', legendFormat: 'store up (min over instances)' },
        { expr: 'sum(paypulse_store_buffered_outcomes)', legendFormat: 'buffered' },
        { expr: 'sum(paypulse_store_spilled_outcomes)', legendFormat: 'spilled' },
      ],
    },
    {
      title: 'Outcomes dropped or refused',
      description: 'Lost outcomes (buffer overflow) and outcomes refused past maxChannels / maxDimensionValues.',
      type: 'timeseries', unit: 'reqps', width: 12,
      targets: [
        { expr: 'sum(rate(paypulse_store_dropped_outcomes_total[$__rate_interval]))', legendFormat: 'dropped' },
        { expr: 'sum(rate(paypulse_limit_rejected_outcomes_total[$__rate_interval]))', legendFormat: 'refused at a limit' },
      ],
    },
  ];
}

/** The dashboard as Grafana's import JSON (schema 39), with a data source input chosen at import. */
export function grafanaDashboard(levels: Thresholds): object {
  let y = 0;
  let x = 0;
  const built = panels(levels).map((p, i) => {
    if (x + p.width > 24) {
      x = 0;
      y += 8;
    }
    const gridPos = { x, y, w: p.width, h: 8 };
    x += p.width;
    return {
      id: i + 1,
      type: p.type,
      title: p.title,
      description: p.description,
      datasource: { type: 'prometheus', uid: '${DS_PROMETHEUS}' },
      gridPos,
      fieldConfig: {
        defaults: {
          unit: p.unit,
          ...(p.thresholds ? { thresholds: { mode: 'absolute', steps: p.thresholds }, custom: { thresholdsStyle: { mode: 'line' } } } : {}),
        },
        overrides: [],
      },
      options: { legend: { displayMode: 'table', placement: 'right', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
      targets: p.targets.map((t, j) => ({ refId: String.fromCharCode(65 + j), expr: t.expr, legendFormat: t.legendFormat, datasource: { type: 'prometheus', uid: '${DS_PROMETHEUS}' } })),
    };
  });
  return {
    __inputs: [{ name: 'DS_PROMETHEUS', label: 'Prometheus', type: 'datasource', pluginId: 'prometheus', pluginName: 'Prometheus' }],
    __requires: [{ type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' }],
    uid: 'paypulse-overview',
    title: 'PayPulse',
    tags: ['paypulse', 'payments'],
    timezone: 'browser',
    schemaVersion: 39,
    version: 1,
    refresh: '10s',
    time: { from: 'now-1h', to: 'now' },
    templating: {
      list: [
        {
          name: 'window', label: 'Window', type: 'query', datasource: { type: 'prometheus', uid: '${DS_PROMETHEUS}' },
          query: { query: 'label_values(paypulse_success_ratio, window)', refId: 'window' }, definition: 'label_values(paypulse_success_ratio, window)',
          refresh: 2, current: { text: '1m', value: '1m' }, includeAll: false, multi: false,
        },
        {
          name: 'channel', label: 'Channel', type: 'query', datasource: { type: 'prometheus', uid: '${DS_PROMETHEUS}' },
          query: { query: 'label_values(paypulse_success_ratio, channel)', refId: 'channel' }, definition: 'label_values(paypulse_success_ratio, channel)',
          refresh: 2, includeAll: true, multi: true, allValue: '.*', current: { text: 'All', value: '$__all' },
        },
      ],
    },
    panels: built,
  };
}

/** Every query of the dashboard, for checks that they parse and read metrics the service exports. */
export function dashboardQueries(levels: Thresholds): string[] {
  return panels(levels).flatMap((p) => p.targets.map((t) => t.expr));
}
