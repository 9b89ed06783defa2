// A call over many channels that some of the store answered and some did not: a Redis Cluster with one master
// down serves every slot but that master's. Callers keep what was answered and treat only the rest as an outage,
// so a cluster is only as down as its dead node (docs/storage.md, "One master down").

export class PartialStoreFailure<T> extends Error {
  constructor(
    /** Per item of the call: its answer, or undefined where the store did not answer. */
    readonly results: ReadonlyArray<T | undefined>,
    /** The first failure, for logs. */
    readonly firstError: unknown,
  ) {
    const failed = results.reduce((n, r) => n + (r === undefined ? 1 : 0), 0);
    super(`${failed} of ${results.length} channels unanswered: ${firstError instanceof Error ? firstError.message : String(firstError)}`);
    this.name = 'PartialStoreFailure';
  }
}

/**
 * Settles every call; resolves when all succeeded, rejects with the first error when none did, and with a
 * PartialStoreFailure over `results` (filled in by the calls that succeeded) when some did.
 */
export async function settleCalls<T>(calls: Array<Promise<void>>, results: Array<T | undefined>): Promise<T[]> {
  const settled = await Promise.allSettled(calls);
  const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failures.length === 0) return results as T[];
  if (failures.length === settled.length) throw failures[0]!.reason;
  throw new PartialStoreFailure(results, failures[0]!.reason);
}
