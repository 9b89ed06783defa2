// 95 % Wilson score interval: unlike the normal approximation it stays inside [0, 1] and is honest
// for the small samples a quiet channel has (fewer than ~100 samples make a jumpy rate; docs/background.md).
export const z95 = 1.959963984540054;

export function wilson(success: number, total: number): { low: number | null; high: number | null } {
  return wilsonAt(success, total, z95);
}

/** The Wilson interval for any `z` (a stricter one for decisions taken thousands of times a day). */
export function wilsonAt(success: number, total: number, z: number): { low: number | null; high: number | null } {
  if (total === 0) return { low: null, high: null };
  const p = success / total;
  const z2 = z * z;
  const denominator = 1 + z2 / total;
  const centre = p + z2 / (2 * total);
  const margin = z * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total));
  return {
    low: Math.max(0, (centre - margin) / denominator),
    high: Math.min(1, (centre + margin) / denominator),
  };
}
