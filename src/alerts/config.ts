// The `alerts` section of the service's config file, checked with the rest of the configuration: each bad
// field becomes one line naming where it came from (`paypulse.yml: alerts.window: must be …`), as every other
// setting's error does.
import { ValidationError } from '../errors.js';
import { promRulesYaml } from './promRules.js';
import type { Thresholds } from '../stats/severity.js';
import { resolveAlertRules, type AlertRules, type AlertRulesInput } from './rules.js';

export interface AlertsSectionCheck {
  rules?: AlertRules;
  lines: string[];
}

/** `source`: where the section came from, e.g. the config file's path; fields are shown under it. */
export function checkAlertsSection(raw: unknown, thresholds: Thresholds, minSamples: number, source = 'alerts'): AlertsSectionCheck {
  if (raw === undefined) return { lines: [] };
  try {
    return { rules: resolveAlertRules(raw as AlertRulesInput, thresholds, minSamples), lines: [] };
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const prefix = source === 'alerts' ? '' : `${source.replace(/: alerts$/, '')}: `;
    return { lines: err.issues.map((i) => `${prefix}${i.field}: ${i.reason}`) };
  }
}

/** `paypulse rules`: the Prometheus rule file for the configured alerts (defaults when there is no section). */
export function rulesCommandOutput(config: { alerts?: unknown; thresholds: Thresholds; minSamples: number; windows: string[] }): string {
  const rules = resolveAlertRules((config.alerts ?? {}) as AlertRulesInput, config.thresholds, config.minSamples);
  return promRulesYaml(rules, { windows: config.windows });
}
