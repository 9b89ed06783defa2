// The half-life a series chooses and the shift test, on counts shaped like the score windows' slices.
import { describe, expect, it } from 'vitest';
import { HalfLifeChooser, halfLivesSec, shiftStatistic, shiftThreshold, sliceAgesSec, sliceWeights } from '../../src/routing/discount.js';
import { seededRandom } from '../../src/sim/random.js';

const windowsSec = [10, 60, 300, 900, 3600];

describe('shift test', () => {
  it('finds a channel gone to 0 % from three failures against an hour at 95 %, and no shift between equal rates', () => {
    expect(shiftStatistic(0, 3, 3_420, 180)).toBeGreaterThan(shiftThreshold);
    expect(shiftStatistic(0, 1, 3_420, 180)).toBeLessThan(shiftThreshold);
    expect(shiftStatistic(285, 15, 3_420, 180)).toBeLessThan(1);
  });
});

describe('half-life chooser', () => {
  const weights = sliceWeights(sliceAgesSec(windowsSec));
  /** Slices of a channel whose rate over the last `ageSec` seconds is rate(age); 30 outcomes a second. */
  function slicesOf(rate: (ageSec: number) => number, random: () => number): { ds: number[]; df: number[] } {
    const ds: number[] = [];
    const df: number[] = [];
    let from = 0;
    for (const to of windowsSec) {
      let s = 0;
      let f = 0;
      for (let age = from; age < to; age++) for (let i = 0; i < 3; i++) (random() < rate(age) ? s++ : f++);
      ds.push(s);
      df.push(f);
      from = to;
    }
    return { ds, df };
  }

  it('keeps a long half-life for a steady channel and takes a short one for a channel whose rate keeps moving', () => {
    const random = seededRandom(7);
    const chooser = new HalfLifeChooser(weights);
    let steady = 0;
    let moving = 0;
    for (let t = 0; t < 300; t++) {
      steady = chooser.choose('steady', ...(Object.values(slicesOf(() => 0.93, random)) as [number[], number[]]));
      moving = chooser.choose('moving', ...(Object.values(slicesOf((age) => 0.9 + 0.08 * Math.sin((2 * Math.PI * (age - t)) / 120), random)) as [number[], number[]]));
      chooser.settle();
    }
    expect(halfLivesSec[moving]).toBeLessThan(halfLivesSec[steady]);
    expect(halfLivesSec[steady]).toBeGreaterThanOrEqual(240);
  });
});
