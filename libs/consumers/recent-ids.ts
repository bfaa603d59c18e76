/** One generation of ids: the log in order and where each id stands in it. */
interface Generation {
  ids: string[];
  index: Map<string, number>;
}

const prefixOf = (gen: Generation, length: number): Generation => {
  const ids = gen.ids.slice(0, length);
  return { ids, index: new Map(ids.map((id, i) => [id, i])) };
};

/**
 * The ids a process stream has recorded (observed events, issued commands), kept for
 * idempotence and bounded: at least the last `keep` ids are known (up to twice that).
 * Enough because a redelivered event is one after the consumer's last checkpoint, which a
 * process manager saves after every batch holding one of its events (docs/process-managers.md),
 * and a command is issued again only by a trigger recorded again. Unbounded, a long-lived
 * process (a webhook endpoint's) grew its state with every event and copied it per fact.
 *
 * Persistent, as folded process states are cached and never mutated: `with` returns a new
 * value and leaves this one as it was. Values share one log per generation, each seeing its
 * own prefix, so adding to the newest value is O(1); adding to an older value (a fork)
 * copies its prefix, once.
 */
export class RecentIds {
  private constructor(
    private readonly gen: Generation,
    /** How much of `gen.ids` this value holds. */
    private readonly length: number,
    /** The full generation before this one (frozen), or null. */
    private readonly older: Generation | null,
    private readonly keep: number,
  ) {}

  static empty(keep = 10_000): RecentIds {
    return new RecentIds({ ids: [], index: new Map() }, 0, null, keep);
  }

  has(id: string): boolean {
    const at = this.gen.index.get(id);
    return (at !== undefined && at < this.length) || (this.older?.index.has(id) ?? false);
  }

  with(id: string): RecentIds {
    if (this.has(id)) return this;
    if (this.length >= this.keep) {
      // This generation is full: it becomes the older one, and the one before it is forgotten.
      const frozen = this.gen.ids.length === this.length ? this.gen : prefixOf(this.gen, this.length);
      return new RecentIds({ ids: [id], index: new Map([[id, 0]]) }, 1, frozen, this.keep);
    }
    const gen = this.gen.ids.length === this.length ? this.gen : prefixOf(this.gen, this.length);
    gen.ids.push(id);
    gen.index.set(id, this.length);
    return new RecentIds(gen, this.length + 1, this.older, this.keep);
  }

  /** How many ids are known now (between `keep` and twice that once that many were added). */
  get size(): number {
    return this.length + (this.older?.ids.length ?? 0);
  }
}
