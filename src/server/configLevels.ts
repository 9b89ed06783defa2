// The service settings that are not one value a field: thresholds (levels, optionally per channel, each level
// also by environment variable) and dimension sets (a list of lists, written `method;method,currency` in the
// environment). Their schemas and how the environment fills them live here; config.ts merges the sources.
import { z } from 'zod';
import type { Thresholds, ThresholdsWithChannels } from '../stats/severity.js';
import { channelPattern, isDimensionName, reasons } from '../stats/validate.js';
import { ownEntry } from '../ownEntry.js';

const level = z.number().gt(0).lte(1);
const ordered = (t: Thresholds) => t.critical < t.major && t.major < t.warn;
const outOfOrder = 'must satisfy critical < major < warn';
// zod rewrites a refine's params object in place, so each use gets its own.
const orderMessage = () => ({ message: outOfOrder });

/** A channel's block names the levels it changes; the others are the default levels. */
const channelLevelsSchema = z.strictObject({ warn: level.optional(), major: level.optional(), critical: level.optional() });

export const thresholdsSchema = z
  .strictObject({
    warn: level,
    major: level,
    critical: level,
    /** A channel's own levels, e.g. a wallet whose normal is 90 %; the dashboard and the alerts both use them. */
    channels: z
      .record(z.string().regex(channelPattern, `channel names ${reasons.channel}`), channelLevelsSchema)
      .refine((channels) => Object.keys(channels).length <= 10_000, { message: 'at most 10,000 channels' })
      .optional(),
  })
  .refine(ordered, orderMessage())
  .transform(({ channels, ...levels }): ThresholdsWithChannels => {
    if (!channels) return levels;
    // From entries: a channel named like an Object.prototype member is an entry like any other.
    const filled = Object.entries(channels).map(([name, own]): [string, Thresholds] => [name, { warn: own.warn ?? levels.warn, major: own.major ?? levels.major, critical: own.critical ?? levels.critical }]);
    return { ...levels, channels: Object.fromEntries(filled) };
  })
  .superRefine((t, ctx) => {
    for (const [name, levels] of Object.entries(t.channels ?? {})) {
      if (!ordered(levels)) ctx.addIssue({ code: 'custom', path: ['channels', name], message: outOfOrder, input: levels });
    }
  });

export type ServiceThresholds = z.infer<typeof thresholdsSchema>;

// The same rule as the HTTP API's `dims=` names (src/server/routes/channels.ts), so a configured set can be read.
const dimensionName = z.string().refine(isDimensionName, `dimension ${reasons.dimName}`);

export const dimensionsSchema = z
  .array(z.array(dimensionName).min(1, 'a dimension set names at least one dimension').max(8, 'at most 8 dimensions a set'))
  .max(32, 'at most 32 dimension sets');

/** `method;method,currency` → [['method'], ['method', 'currency']]. */
export function dimensionsFromEnv(raw: string): string[][] {
  return raw
    .split(';')
    .map((set) => set.split(',').map((name) => name.trim()).filter(Boolean))
    .filter((set) => set.length > 0);
}

export const thresholdEnv = [
  ['PAYPULSE_THRESHOLDS_WARN', 'warn'],
  ['PAYPULSE_THRESHOLDS_MAJOR', 'major'],
  ['PAYPULSE_THRESHOLDS_CRITICAL', 'critical'],
] as const;

/**
 * Applies PAYPULSE_THRESHOLDS_* over the thresholds merged so far; returns the variables it used with their
 * level, so an error names them. A value that is not a number stays a string, for the error to show what was typed.
 */
export function applyThresholdEnv(merged: Record<string, unknown>, env: NodeJS.ProcessEnv): [string, string][] {
  const used: [string, string][] = [];
  for (const [name, key] of thresholdEnv) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = /^\d*\.?\d+$/.test(raw) ? Number(raw) : raw;
    merged.thresholds = { ...(merged.thresholds as object), [key]: value };
    used.push([name, key]);
  }
  return used;
}

/** The default levels alone: what the library and the alert rules take (per-channel ones reach them through `alerts`). */
export function defaultLevels(thresholds: ServiceThresholds): Thresholds {
  const { warn, major, critical } = thresholds;
  return { warn, major, critical };
}

/**
 * The alert rules take their per-channel levels from `thresholds.channels`, so the dashboard's colours and the
 * alerts never disagree; a level set under `alerts.channels.<name>.thresholds` still wins for that channel.
 */
export function alertsWithChannelLevels(alerts: Record<string, unknown> | undefined, thresholds: ServiceThresholds): Record<string, unknown> | undefined {
  if (!alerts || !thresholds.channels) return alerts;
  // A malformed channels section is left as it is, for the alerts checker to name.
  if (alerts.channels !== undefined && (typeof alerts.channels !== 'object' || alerts.channels === null || Array.isArray(alerts.channels))) return alerts;
  const own = (alerts.channels ?? {}) as Record<string, Record<string, unknown>>;
  // Built from entries: a channel named `__proto__` or `constructor` is an entry like any other.
  const levelled = Object.entries(thresholds.channels).map(([name, levels]) => [name, { thresholds: levels, ...ownEntry(own, name) }] as const);
  const channels = Object.fromEntries([...Object.entries(own), ...levelled]);
  return { ...alerts, channels };
}
