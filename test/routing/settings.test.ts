// Routing settings refuse what they do not know: a misspelt or retired option (`decay`, gone with the
// age-weighted evidence) must stop the start naming its field, not be silently ignored.
import { describe, expect, it } from 'vitest';
import { resolveRoutingSettings } from '../../src/routing/settings.js';
import type { RoutingOptions } from '../../src/routing/types.js';

describe('routing settings', () => {
  it.each([
    [{ decay: 0.5 }, 'routing.decay'],
    [{ breaker: { openMS: 1000 } }, 'routing.breaker.openMS'],
  ])('refuses %j naming %s', (options, field) => {
    expect(() => resolveRoutingSettings(options as RoutingOptions)).toThrow(expect.objectContaining({ code: 'PP_ERR_CONFIG', details: expect.objectContaining({ field }) }));
  });

  it('takes every documented option', () => {
    const settings = resolveRoutingSettings({ exploration: 0.02, breaker: { openMs: 5_000, probes: 3 }, experiment: { share: 0.1 } });
    expect(settings.breaker.openMs).toBe(5_000);
  });
});
