import { mix32, PHASE_SEED } from './hashing';

/**
 * A timing wheel over one check interval: `slotCount` slots of `intervalMs / slotCount`
 * each, and every domain placed in one slot by a hash of its id. Its phase is therefore
 * fixed (a domain is due exactly once per revolution, at the same offset, whatever else
 * joins or leaves), and hashing spreads domains evenly over the slots without any
 * per-domain timer. Time comes in from the caller (`due(nowMs)`), so a real interval
 * timer drives it in production and tests drive it with an injected clock.
 */
export class TimingWheel {
  readonly slotMs: number;
  private readonly slots: Set<number>[];
  private readonly slotOf = new Map<number, number>();
  /** Absolute number (time / slotMs) of the last slot handed out; null before the first call. */
  private cursor: number | null = null;

  constructor(
    readonly intervalMs: number,
    readonly slotCount: number,
  ) {
    if (!(intervalMs > 0) || !Number.isInteger(slotCount) || slotCount < 1)
      throw new Error('timing wheel needs a positive interval and slot count');
    this.slotMs = intervalMs / slotCount;
    this.slots = Array.from({ length: slotCount }, () => new Set<number>());
  }

  get size(): number {
    return this.slotOf.size;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  slotFor(id: number): number {
    return mix32(id, PHASE_SEED) % this.slotCount;
  }

  add(id: number): void {
    if (this.slotOf.has(id)) return;
    const slot = this.slotFor(id);
    this.slots[slot].add(id);
    this.slotOf.set(id, slot);
  }

  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slots[slot].delete(id);
    this.slotOf.delete(id);
  }

  /** How many ids each slot holds (for the spread figures). */
  occupancy(): number[] {
    return this.slots.map((s) => s.size);
  }

  /**
   * The ids whose slots started in (last call, nowMs]. The first call hands out only the
   * current slot (a start is not a burst of everything). A gap longer than one interval
   * (a paused process, a test moving its clock by a day) hands out each slot once, never
   * a domain twice.
   */
  due(nowMs: number): number[] {
    const current = Math.floor(nowMs / this.slotMs);
    const from = this.cursor === null ? current : Math.max(this.cursor + 1, current - this.slotCount + 1);
    if (this.cursor === null || current > this.cursor) this.cursor = current;
    const out: number[] = [];
    for (let abs = from; abs <= current; abs++) for (const id of this.slots[abs % this.slotCount]) out.push(id);
    return out;
  }
}
