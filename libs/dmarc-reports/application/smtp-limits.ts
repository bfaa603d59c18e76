/**
 * What the SMTP intake lets one client, and all of them together, hold of the process
 * (contract §16, docs/security/intake-and-tcp.md). Pure bookkeeping: the listener asks and
 * answers the client.
 */

/** What SessionTable.enter decided: admit (after closing `evict`, when set), or refuse and why. */
export type Admission = { admit: true; evict: string | null } | { admit: false; reason: 'address_full' | 'full' };

/**
 * Sessions open, in total and per client address (a key from clientKey), with when each
 * last made progress (connected, or had MAIL, RCPT or a whole message accepted). With the
 * table full, a new session takes the place of the one that has gone longest without
 * progress, if that is at least `staleAfterMs`: a client trickling bytes never makes
 * progress, so it cannot keep reporters out by holding every place. A client at its own
 * cap is refused (421): mail is retried, and its own sessions are not taken from others.
 */
export class SessionTable {
  private readonly sessions = new Map<string, { address: string; progressAt: number }>();
  private readonly perAddress = new Map<string, number>();

  constructor(
    readonly cap: number,
    readonly capPerAddress: number,
    readonly staleAfterMs: number,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  enter(id: string, address: string, now: number): Admission {
    if ((this.perAddress.get(address) ?? 0) >= this.capPerAddress) return { admit: false, reason: 'address_full' };
    let evict: string | null = null;
    if (this.sessions.size >= this.cap) {
      evict = this.stalest(now);
      if (evict === null) return { admit: false, reason: 'full' };
      this.leave(evict);
    }
    this.sessions.set(id, { address, progressAt: now });
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    return { admit: true, evict };
  }

  progress(id: string, now: number): void {
    const session = this.sessions.get(id);
    if (session) session.progressAt = now;
  }

  /** Idempotent: a session closed to make room leaves once here and again when its socket closes. */
  leave(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    const n = (this.perAddress.get(session.address) ?? 0) - 1;
    if (n > 0) this.perAddress.set(session.address, n);
    else this.perAddress.delete(session.address);
  }

  private stalest(now: number): string | null {
    let found: string | null = null;
    let oldest = now - this.staleAfterMs;
    for (const [id, s] of this.sessions) {
      if (s.progressAt <= oldest) {
        oldest = s.progressAt;
        found = id;
      }
    }
    return found;
  }
}

/**
 * Message bytes held in memory by every session together, below a cap, and the blocks they
 * are held in. A message's bytes are copied into blocks of `blockSize` (HeldMessage), and a
 * message that is stored or refused gives its blocks back for the next one: the bytes a
 * refused message held are not left to the garbage collector, which frees Buffers that lived
 * that long only in a full collection (four 200 MB messages left 40–50 MB of them behind).
 * Spare blocks are dropped once nothing has been held for `idleMs`.
 */
export class ByteBudget {
  private used = 0;
  private readonly spare: Buffer[] = [];
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly cap: number,
    readonly blockSize = 64 * 1024,
    private readonly idleMs = 10_000,
  ) {}

  get held(): number {
    return this.used;
  }

  /** Spare blocks kept for reuse (diagnostics and tests). */
  get spareBlocks(): number {
    return this.spare.length;
  }

  /** Takes `n` bytes; false (and nothing taken) when that would pass the cap. */
  take(n: number): boolean {
    if (this.used + n > this.cap) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
    if (this.used === 0 && !this.idleTimer) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        if (this.used === 0) this.spare.length = 0;
      }, this.idleMs).unref();
    }
  }

  /** An empty block to copy held bytes into: a spare one when there is one. */
  block(): Buffer {
    return this.spare.pop() ?? Buffer.allocUnsafeSlow(this.blockSize);
  }

  /** Blocks a message no longer needs: kept for reuse, never more than the cap's worth. */
  giveBlocks(blocks: Buffer[]): void {
    const room = Math.ceil(this.cap / this.blockSize) - this.spare.length;
    for (let i = 0; i < Math.min(room, blocks.length); i++) this.spare.push(blocks[i]);
  }
}

/**
 * One message's bytes, kept only while it is under the size limit and the shared budget
 * has room. Past either, the bytes are given back at once and the rest is only counted (the
 * SMTP stream still has to be read to its end to answer). Each chunk is copied into the
 * budget's blocks rather than kept: the SMTP stream's chunks then die young, and a young
 * Buffer is freed by the next minor collection. `release` gives the bytes and blocks back;
 * it is safe to call more than once.
 */
export class HeldMessage {
  private blocks: Buffer[] = [];
  /** Bytes written into the last block. */
  private fill = 0;
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
    for (let at = 0; at < chunk.length;) {
      if (this.blocks.length === 0 || this.fill === this.budget.blockSize) {
        this.blocks.push(this.budget.block());
        this.fill = 0;
      }
      const copied = chunk.copy(this.blocks[this.blocks.length - 1], this.fill, at);
      this.fill += copied;
      at += copied;
    }
  }

  /** The whole message, copied out; its bytes stay counted against the budget until `release`. */
  content(): Buffer {
    return Buffer.concat(this.blocks, this.bytes);
  }

  release(): void {
    this.budget.give(this.bytes);
    this.budget.giveBlocks(this.blocks);
    this.bytes = 0;
    this.blocks = [];
    this.fill = 0;
  }

  private stop(reason: 'too_large' | 'no_room'): void {
    this.stopped = reason;
    this.release();
  }
}
