/**
 * The events read most recently from `$all`, by position, so that the subscriptions of one
 * store share one object per event: each decodes its JSON once (lazily) however many
 * consumers read it. Consumers at the head drift apart (a projection awaiting its read store
 * is a batch behind the one that has none), so they read overlapping ranges at different
 * cursors; the shared head pages only serve cursors that are equal. Positions are never
 * reused (AUTOINCREMENT) and a stored event never changes, so an object read once stands for
 * its row for good; retention clears the set anyway, as it does the catch-up blocks.
 *
 * The events this store itself has just committed come in here at their commit, with the
 * stretch of positions they fill (`committed`): every position of a commit is one of its
 * events, so while they are held, a subscription reading within the stretch takes them from
 * here (`range`) instead of reading the rows back from SQLite (decision 0114).
 *
 * Bounded by the stored size of what it holds (oldest dropped first).
 */
export class RecentEvents<E> {
  private readonly events = new Map<number, { event: E; bytes: number }>();
  private bytes = 0;
  /** Every position in (completeAfter, completeTo] is held here (each one is an event of a local commit). */
  private completeAfter = 0;
  private completeTo = 0;

  constructor(private readonly maxBytes: number) {}

  get(position: number): E | undefined {
    return this.events.get(position)?.event;
  }

  /** Keeps `event` (`bytes` its stored size), dropping the oldest beyond the bound. */
  keep(position: number, event: E, bytes: number): void {
    if (this.events.has(position)) return;
    if (bytes > this.maxBytes) return this.lost(position);
    this.events.set(position, { event, bytes });
    this.bytes += bytes;
    while (this.bytes > this.maxBytes) {
      const [oldest, held] = this.events.entries().next().value!;
      this.events.delete(oldest);
      this.bytes -= held.bytes;
      this.lost(oldest);
    }
  }

  /**
   * The events of one commit of this store, which filled every position in `(after, last]`
   * (`events[i]` at `after + 1 + i`), each kept unless one is already held for its position.
   * The stretch joins the complete one it follows, or starts a new one (another connection may
   * have committed in between).
   */
  committed(after: number, events: readonly { position: number; event: E; bytes: number }[]): void {
    if (events.length === 0) return;
    const last = after + events.length;
    if (after !== this.completeTo) this.completeAfter = after;
    this.completeTo = last;
    for (const e of events) this.keep(e.position, e.event, e.bytes);
  }

  /**
   * The events in `(cursor, upTo]`, when that stretch is known whole here (each of its
   * positions an event of a local commit, still held); otherwise null (read it from SQLite).
   */
  range(cursor: number, upTo: number): E[] | null {
    if (cursor < this.completeAfter || upTo > this.completeTo || upTo < cursor) return null;
    const out = new Array<E>(upTo - cursor);
    for (let p = cursor + 1, i = 0; p <= upTo; p++, i++) {
      const held = this.events.get(p);
      if (!held) return null;
      out[i] = held.event;
    }
    return out;
  }

  clear(): void {
    this.events.clear();
    this.bytes = 0;
    this.completeAfter = this.completeTo = 0;
  }

  size(): { events: number; bytes: number } {
    return { events: this.events.size, bytes: this.bytes };
  }

  /** `position` is not held (dropped, or too large to keep): the complete stretch starts after it. */
  private lost(position: number): void {
    if (position > this.completeAfter && position <= this.completeTo) this.completeAfter = position;
  }
}
