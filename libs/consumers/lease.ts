import { randomUUID } from 'node:crypto';
import { Coordination } from './coordination';
import { isDeadLocalHolder, processSpace } from './holder-liveness';

/** One id per runtime instance: two runtimes in one process are still two holders. */
export const newHolderId = (): string => `${processSpace()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export const DEFAULT_LEASE_TTL_MS = 10_000;

export interface LeasedWorkOptions {
  ttlMs?: number;
  /** Runs when the lease is taken; the work starts here. */
  onAcquired(): Promise<void>;
  /** Runs when the lease is lost (not renewed in time, taken over) or given up; the work stops here. */
  onReleased(): Promise<void>;
  log?: (msg: string, extra?: object) => void;
}

/**
 * Work that exactly one process runs at a time: the lease `name` is tried at once and
 * then every third of its time to live, renewed while held, and taken over by a standby
 * once its holder stops renewing (a crashed process) for longer than the TTL, or at once
 * when the holder was a process of this host that no longer exists. A holder
 * that fails to renew stops its work before anyone can take the lease over, as long as
 * its event loop is not stalled for a whole TTL; what it writes meanwhile is idempotent.
 */
export class LeasedWork {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private stopped = false;
  private holding = false;
  /** The work's start, not awaited by renewals: a long start (a rebuild) must not let the lease lapse. */
  private starting: Promise<void> = Promise.resolve();
  private readonly ttlMs: number;

  constructor(
    private readonly coordination: Coordination,
    readonly name: string,
    readonly holder: string,
    private readonly options: LeasedWorkOptions,
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  }

  get held(): boolean {
    return this.holding;
  }

  /** Tries the lease once (so a lone process starts its work before it serves), then keeps at it. */
  async start(): Promise<void> {
    await this.tick();
    await this.starting;
    const every = Math.max(50, Math.floor(this.ttlMs / 3));
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick());
    }, every);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let ok: boolean;
    try {
      ok = await this.coordination.tryLease(this.name, this.holder, this.ttlMs, Date.now());
      if (!ok && !this.holding) ok = await this.takeFromDeadHolder();
    } catch (e) {
      this.options.log?.('lease check failed', { lease: this.name, error: String(e) });
      ok = false;
    }
    if (this.stopped) return;
    if (ok && !this.holding) {
      this.holding = true;
      this.options.log?.('lease acquired', { lease: this.name, holder: this.holder });
      this.starting = this.options.onAcquired().catch(async (e) => {
        // Work that cannot start gives the lease back so another process may try.
        this.holding = false;
        this.options.log?.('leased work failed to start', { lease: this.name, error: String(e) });
        await this.coordination.releaseLease(this.name, this.holder).catch(() => undefined);
      });
    } else if (!ok && this.holding) {
      this.holding = false;
      this.options.log?.('lease lost', { lease: this.name, holder: this.holder });
      await this.starting;
      await this.options.onReleased();
    }
  }

  /** A lease whose holder on this host has died (killed, crashed) is taken at once rather than after its TTL. */
  private async takeFromDeadHolder(): Promise<boolean> {
    const now = Date.now();
    const current = await this.coordination.leaseHolder(this.name, now);
    if (!current || !isDeadLocalHolder(current)) return false;
    const taken = await this.coordination.tryLease(this.name, this.holder, this.ttlMs, now, current);
    if (taken) this.options.log?.('lease taken from a holder that no longer runs', { lease: this.name, from: current });
    return taken;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    await this.starting;
    if (this.holding) {
      this.holding = false;
      await this.options.onReleased();
      await this.coordination.releaseLease(this.name, this.holder).catch(() => undefined);
    }
  }
}
