// Config reload (SIGHUP, POST /v1/admin/reload): reads the configuration again the way the service was started
// (file, environment, flags) and applies what can change while serving — thresholds, alert rules and their
// receivers, the router's scoring, exploration, channel weights and breaker levels — between two requests, so
// none is dropped. A configuration that fails to load or validate is refused whole, each bad field logged, and
// the running one stays. Settings that shape sockets, stores, keys or what the snapshot reads (port, redisUrl,
// windows, dimensions, strategy, routing.scoreWindows, routing.breaker.window …) take effect on the next start;
// a reload names them, so an operator knows a restart is still due.
import type { Logger } from 'pino';
import { ValidationError } from '../errors.js';
import type { Pulse } from '../pulse.js';
import { routingSettingsFor, type RoutingOptions, type RoutingSettings } from '../routing/index.js';
import { ConfigError, loadConfig, type LoadConfigOptions, type ServiceConfig } from './config.js';
import { defaultLevels } from './configLevels.js';

export interface ReloadReport {
  /** Settings whose new value is in effect. */
  applied: string[];
  /** Settings whose new value waits for a restart. */
  needsRestart: string[];
}

export interface ConfigReloader {
  /** Throws ConfigError (one line per bad field) and changes nothing when the new configuration is refused. */
  reload(): ReloadReport;
}

export interface ConfigReloaderOptions {
  /** The service's configuration: the live object its readers read at use, updated in place. */
  config: ServiceConfig;
  /** How the configuration was loaded; absent when the service was handed a config object. */
  source?: LoadConfigOptions;
  pulse: Pulse;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  onResult?: (ok: boolean) => void;
}

const reloadable = new Set<string>(['thresholds', 'alerts', 'routing']);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Applies the alert rules of `next`; a ValidationError becomes config lines naming the field. */
function applyAlerts(pulse: Pulse, next: ServiceConfig): void {
  try {
    pulse.reconfigureAlerts(next.alerts ?? {}, defaultLevels(next.thresholds));
  } catch (err) {
    if (err instanceof ValidationError) throw new ConfigError(err.issues.map((i) => `${i.field}: ${i.reason}`));
    throw err;
  }
}

/** The routing settings of `next`, checked against the running engine's dimensions before anything applies. */
function checkRouting(pulse: Pulse, next: ServiceConfig): RoutingSettings {
  try {
    return routingSettingsFor((next.routing ?? {}) as RoutingOptions, pulse.settings);
  } catch (err) {
    // The message names the field (`routing.breaker.dims[0] must be …`).
    throw new ConfigError([(err as Error).message]);
  }
}

export function createConfigReloader(options: ConfigReloaderOptions): ConfigReloader {
  const { config, pulse, logger } = options;
  function load(): ServiceConfig {
    if (!options.source) throw new ConfigError(['(reload): the service was started from a config object, not a file or the environment; nothing to read again']);
    return loadConfig(options.source);
  }
  function reload(): ReloadReport {
    const next = load();
    const changed = [...new Set([...Object.keys(config), ...Object.keys(next)])].filter((k) => !same(config[k as keyof ServiceConfig], next[k as keyof ServiceConfig]));
    // Alerts turned on or off change which parts run: that is a restart.
    const switched = Boolean(next.alerts) !== Boolean(pulse.alerts);
    const applied = changed.filter((k) => reloadable.has(k) && !(k === 'alerts' && switched));
    // evaluateEvery numbers the fleet's evaluation slots: the running rules keep theirs (Alerts.reconfigure).
    const slotsChanged = applied.includes('alerts') && !same(config.alerts?.evaluateEvery, next.alerts?.evaluateEvery);
    const routing = applied.includes('routing') ? checkRouting(pulse, next) : undefined;
    if (applied.some((k) => k !== 'routing') && pulse.alerts && !switched) applyAlerts(pulse, next);
    const routingWaits = routing ? pulse.routing.reconfigure(routing) : [];
    const needsRestart = [...changed.filter((k) => !applied.includes(k)), ...(slotsChanged ? ['alerts.evaluateEvery'] : []), ...routingWaits];
    for (const key of applied) Object.assign(config, { [key]: next[key as keyof ServiceConfig] });
    return { applied, needsRestart };
  }
  return {
    reload() {
      try {
        const report = reload();
        logger.info(report, 'paypulse: configuration reloaded');
        if (report.needsRestart.length > 0) logger.warn({ settings: report.needsRestart }, 'paypulse: changed settings take effect on restart');
        options.onResult?.(true);
        return report;
      } catch (err) {
        const lines = err instanceof ConfigError ? err.lines : [(err as Error).message];
        for (const line of lines) logger.error({ field: line }, 'paypulse: configuration reload refused; the running configuration stays');
        options.onResult?.(false);
        throw err;
      }
    },
  };
}
