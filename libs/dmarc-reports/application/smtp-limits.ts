/**
 * What the SMTP intake lets one client, and all of them together, hold of the process
 * (contract §16, docs/security/intake-and-tcp.md). Pure bookkeeping: the listener asks and
 * answers the client.
 */

/** Sessions open per client address (a key from clientKey), below a cap. */
export class SessionsPerAddress {
  private readonly open = new Map<string, number>();

  constructor(readonly cap: number) {}

  /** Counts one more session for `address`; false (and nothing counted) when it already has `cap`. */
  enter(address: string): boolean {
    const n = this.open.get(address) ?? 0;
    if (n >= this.cap) return false;
    this.open.set(address, n + 1);
    return true;
  }

  leave(address: string): void {
    const n = (this.open.get(address) ?? 0) - 1;
    if (n > 0) this.open.set(address, n);
    else this.open.delete(address);
  }

  count(address: string): number {
    return this.open.get(address) ?? 0;
  }
}

/** Message bytes held in memory by every session together, below a cap. */
export class ByteBudget {
  private used = 0;

  constructor(readonly cap: number) {}

  get held(): number {
    return this.used;
  }

  /** Takes `n` bytes; false (and nothing taken) when that would pass the cap. */
  take(n: number): boolean {
    if (this.used + n > this.cap) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

/**
 * One message's chunks, kept only while it is under the size limit and the shared budget
 * has room. Past either, the chunks are dropped at once and the rest is only counted (the
 * SMTP stream still has to be read to its end to answer). `release` gives the bytes back;
 * it is safe to call more than once.
 */
export class HeldMessage {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Every byte of the message so far, kept or not. */
  private received = 0;
  /** Why the message is no longer kept, null while it is. */
  private stopped: 'too_large' | 'no_room' | null = null;

  constructor(
    private readonly budget: ByteBudget,
    private readonly maxBytes: number,
  ) {}

  get size(): number {
    return this.received;
  }

  get refused(): 'too_large' | 'no_room' | null {
    return this.stopped;
  }

  add(chunk: Buffer): void {
    this.received += chunk.length;
    if (this.stopped) return;
    if (this.received > this.maxBytes) return this.stop('too_large');
    if (!this.budget.take(chunk.length)) return this.stop('no_room');
    this.bytes += chunk.length;
    this.chunks.push(chunk);
  }

  /** The whole message; its bytes stay counted against the budget until `release`. */
  content(): Buffer {
    const whole = Buffer.concat(this.chunks);
    this.chunks = [];
    return whole;
  }

  release(): void {
    this.budget.give(this.bytes);
    this.bytes = 0;
    this.chunks = [];
  }

  private stop(reason: 'too_large' | 'no_room'): void {
    this.stopped = reason;
    this.release();
  }
}
