// While the process is degraded, one store call a second of its own, so the degradation switch keeps getting
// evidence after the calls that fed it stop: once the buffer is written, a process that records nothing (or only
// uses the kit) makes no store calls, and seconds without calls neither break nor extend a run, so it would stay
// degraded with the store healthy.
import type { DegradationSwitch } from './degradation.js';

export interface DegradationProbe {
  stop(): void;
}

export function startDegradationProbe(degradation: DegradationSwitch, probe: () => Promise<unknown>, intervalMs = 1000): DegradationProbe {
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight || degradation.level === 0) return;
    inFlight = true;
    probe().then(
      () => degradation.observe(false),
      () => degradation.observe(true),
    ).finally(() => {
      inFlight = false;
    });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
