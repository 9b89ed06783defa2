// Records keyed by names users give (channels, dimensions) are read through here: a plain `record[name]` finds
// an inherited member for `constructor`, `toString` or `__proto__`, which then stands in for a missing entry.

/** The record's own entry for `name`, or undefined. */
export function ownEntry<T>(record: Readonly<Record<string, T>> | undefined, name: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined;
}
