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
