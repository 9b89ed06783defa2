// The demo's terminal view: the channel table redrawn in place every two seconds.
import type { Pulse } from '../pulse.js';
import type { Thresholds } from '../stats/severity.js';
import { renderRates } from './table.js';

export function startLiveTable(pulse: Pulse, thresholds: Thresholds, note: () => string): () => void {
  let lines = 0;
  const timer = setInterval(async () => {
    try {
      const rates = (await Promise.all((await pulse.channels()).map((c) => pulse.ratesOf(c)))).flat();
      const text = `${renderRates(rates, pulse.windows, thresholds)}\n${note()}`;
      if (lines > 0 && process.stdout.isTTY) process.stdout.write(`\x1b[${lines}A\x1b[J`);
      process.stdout.write(`${text}\n`);
      lines = text.split('\n').length;
    } catch {
      // The store is down: the next tick tries again; the service's logs say why.
    }
  }, 2000);
  timer.unref();
  return () => clearInterval(timer);
}
