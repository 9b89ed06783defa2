// Bounds the loader calls the cache makes while its store is down, so the database behind it survives.
/** At most `limit` loaders at once; the rest queue (with the store down, reads go to the database behind it). */
export class ConcurrencyLimit {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next in line, so a newcomer cannot slip in between.
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }

  get running(): number {
    return this.active;
  }
}
