// Dimension names that an object inherits (`toString`, `constructor`, `valueOf` …) are refused wherever a name
// is given, because a plain-object lookup of such a name finds a function on every outcome: a configured set
// [['toString']] made every outcome write a series named `toString=function toString() { [native code] }`.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PayPulseError, ValidationError } from '../../src/errors.js';
import { createPulse } from '../../src/pulse.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { SeriesPlan } from '../../src/stats/series.js';
import { isDimensionName } from '../../src/stats/validate.js';
import { resolveAlertRules, ruleFor } from '../../src/alerts/rules.js';
import { createChannelPages } from '../../src/server/routes/channelPages.js';
import { verdictSource } from '../../src/server/rowVerdicts.js';
import type { ChannelHealth } from '../../src/stats/healthSnapshot.js';

const at = Date.UTC(2026, 0, 1);
const inherited = Object.getOwnPropertyNames(Object.prototype).filter((name) => /^[A-Za-z]/.test(name));

describe('dimension names that Object.prototype holds', () => {
  it.each(inherited)('%s is not a dimension name', (name) => {
    expect(isDimensionName(name)).toBe(false);
  });

  it('ordinary names still are', () => {
    for (const name of ['method', 'currency', 'amountBand', 'toStringy', 'valueOfX', 'Constructor']) expect(isDimensionName(name)).toBe(true);
  });

  it('createPulse refuses dimensions [["toString"], ["constructor", "valueOf"]] with PP_ERR_CONFIG naming the set', async () => {
    const err = await createPulse({ dimensions: [['toString'], ['constructor', 'valueOf']] }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(PayPulseError);
    expect((err as PayPulseError).code).toBe('PP_ERR_CONFIG');
    expect((err as PayPulseError).message).toMatch(/toString/);
  });

  it('the service config refuses them, naming each', () => {
    let lines: string[] = [];
    try {
      loadConfig({ env: { PAYPULSE_DIMENSIONS: 'toString;constructor,valueOf' } });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      lines = (err as ConfigError).lines;
    }
    expect(lines).toEqual([
      expect.stringMatching(/^PAYPULSE_DIMENSIONS.*toString/),
      expect.stringMatching(/^PAYPULSE_DIMENSIONS.*constructor/),
      expect.stringMatching(/^PAYPULSE_DIMENSIONS.*valueOf/),
    ]);
  });

  it('an outcome with dims { toString } is refused, naming the field', async () => {
    const pulse = await createPulse({ clock: new ManualClock(at + 1000), dimensions: [['method']] });
    try {
      const err = await pulse.record({ channel: 'a', requestId: 'r', status: 'success', at, dims: { toString: 'x', method: 'card' } }).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'dims.toString' })]);
    } finally {
      await pulse.close();
    }
  });

  it('a series is made only of dims the outcome itself carries', () => {
    const plan = new SeriesPlan([['method'], ['currency', 'method']]);
    const inheritedDims = Object.create({ method: 'card', currency: 'EUR' }) as Record<string, string>;
    expect(plan.seriesOf(inheritedDims)).toEqual(['']);
    expect(plan.seriesOf({ method: 'card' })).toEqual(['', 'method=card']);
  });
});

describe('channel names that Object.prototype holds', () => {
  const levels = { warn: 0.95, major: 0.8, critical: 0.5 };
  const rate = (channel: string, window: string) => ({ channel, window, total: 200, success: 120, failure: 80, rate: 0.6, low: 0.55, high: 0.65, sufficient: true, started: 200, pending: 0, stale: false, asOf: 0 });

  it.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty'])('a channel named %s is ranked by the default levels, not by a function', (channel) => {
    const pages = createChannelPages({ pageChannels: 10, streamPageChannels: 10, windows: ['5m'], verdicts: () => verdictSource({ ...levels, channels: { wallet: { warn: 0.9, major: 0.7, critical: 0.4 } } }, 100, undefined) });
    const health = (name: string): ChannelHealth => ({ channel: name, series: [], rates: { '5m': rate(name, '5m') } });
    // A page that leaves a channel out carries the count of each state.
    const page = pages.page({ asOf: 0, durationMs: 0, channels: new Map([[channel, health(channel)], ['plain', health('plain')]]) }, { offset: 0, limit: 1 }) as { summary: Record<string, number> };
    expect(page.summary).toMatchObject({ major: 2, ok: 0 });
  });

  it.each(['constructor', 'toString', '__proto__'])('the alert rule of a channel named %s is the default rule', (channel) => {
    const rules = resolveAlertRules({ channels: { wallet: { minSamples: 7 } } }, levels, 100);
    expect(ruleFor(rules, channel)).toEqual(rules.defaults);
  });
});
