/**
 * The events read most recently from `$all`, by position, so that the subscriptions of one
 * store share one object per event: each decodes its JSON once (lazily) however many
 * consumers read it. Consumers at the head drift apart (a projection awaiting its read store
 * is a batch behind the one that has none), so they read overlapping ranges at different
 * cursors; the shared head pages only serve cursors that are equal. Positions are never
 * reused (AUTOINCREMENT) and a stored event never changes, so an object read once stands for
 * its row for good; retention clears the set anyway, as it does the catch-up blocks.
 *
 * Bounded by the stored size of what it holds (oldest dropped first).
 */
export class RecentEvents<E> {
  private readonly events = new Map<number, { event: E; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(position: number): E | undefined {
    return this.events.get(position)?.event;
  }

  /** Keeps `event` (`bytes` its stored size), dropping the oldest beyond the bound. */
  keep(position: number, event: E, bytes: number): void {
    if (bytes > this.maxBytes || this.events.has(position)) return;
    this.events.set(position, { event, bytes });
    this.bytes += bytes;
    while (this.bytes > this.maxBytes) {
      const [oldest, held] = this.events.entries().next().value!;
      this.events.delete(oldest);
      this.bytes -= held.bytes;
    }
  }

  clear(): void {
    this.events.clear();
    this.bytes = 0;
  }

  size(): { events: number; bytes: number } {
    return { events: this.events.size, bytes: this.bytes };
  }
}
