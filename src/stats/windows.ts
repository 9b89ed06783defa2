// Window names: `10s` … `2h` (seconds, minutes, hours). A window covers whole seconds: the current
// second and the `n - 1` before it, so every engine and strategy agrees on its edges to the second.

const unitSec: Record<string, number> = { s: 1, m: 60, h: 3600 };
export const minWindowSec = 10;
export const maxWindowSec = 2 * 3600;

export function parseWindow(window: string): number {
  const match = /^(\d{1,5})([smh])$/.exec(window);
  const seconds = match ? Number(match[1]) * unitSec[match[2]] : NaN;
  if (!(seconds >= minWindowSec && seconds <= maxWindowSec)) {
    throw new RangeError(`window must look like 30s, 5m or 1h and span 10s to 2h, got ${JSON.stringify(window)}`);
  }
  return seconds;
}

/** First and last second (epoch seconds, inclusive) of a window of `windowSec` ending at `now`. */
export function windowSeconds(windowSec: number, now: number): { fromSec: number; toSec: number } {
  const toSec = Math.floor(now / 1000);
  return { fromSec: toSec - windowSec + 1, toSec };
}
