// Rates as people read them in a notification: one decimal and a percent sign, `n/a` for no rate.
export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)} %`;
}
