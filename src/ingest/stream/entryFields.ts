// A stream entry is a flat list of field/value strings; an outcome has numbers and a `dims` object. This
// turns the one into the other without judging it: the outcome rules (stats/validate.ts) then accept or
// reject it exactly as they would a POST /v1/outcomes item, naming the same fields.
const dimsPrefix = 'dims.';
const numericFields = new Set(['at', 'latencyMs']);
/** Only plain decimal text becomes a number; anything else stays text so the rejection shows what was sent. */
const decimalText = /^-?\d+(\.\d+)?$/;

export interface StreamEntry {
  id: string;
  /** field, value, field, value … as XADD was given them. */
  fields: string[];
}

/** The outcome candidate an entry describes: `dims.method=card` becomes `dims: { method: 'card' }`. */
export function outcomeOfEntry(fields: readonly string[]): Record<string, unknown> {
  const outcome: Record<string, unknown> = {};
  let dims: Record<string, string> | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const field = fields[i]!;
    const value = fields[i + 1]!;
    if (field.startsWith(dimsPrefix)) {
      dims ??= {};
      dims[field.slice(dimsPrefix.length)] = value;
    } else {
      outcome[field] = numericFields.has(field) && decimalText.test(value) ? Number(value) : value;
    }
  }
  // A plain `dims` field next to `dims.*` ones is reported as a bad `dims`, not merged silently.
  if (dims) outcome.dims = outcome.dims === undefined ? dims : outcome.dims;
  return outcome;
}
