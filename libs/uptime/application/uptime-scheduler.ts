import { Clock } from '../../shared/clock';
import { BoundedPool } from './bounded-pool';
import { CheckedTarget, CheckSink } from './check-recorder';
import { ownsDomain } from './hashing';
import { TargetSource } from './targets';
import { checkHost, Probe, tcpProbe } from './tcp-probe';
import { TimingWheel } from './timing-wheel';
import { slotCountFor, UptimeSettings } from './uptime-settings';

/** How often the timer pulls target changes (a DDNS change is honoured within this, plus projection lag). */
const SYNC_EVERY_MS = 1000;

export interface SchedulerStats {
  targets: number;
  dispatched: number;
  skippedBusy: number;
  failedRecords: number;
}

/**
 * The uptime scheduler of one worker: the monitored domains of its partition on a timing
 * wheel, a bounded pool of checks, and a sink for the results. It has no timer of its
 * own: `runDue(now)` hands out the slots that started since the last call, so production
 * calls it from an interval timer and tests from an injected clock. Once per interval
 * it re-reads all targets, so a missed incremental change heals within one interval.
 */
export class UptimeScheduler {
  readonly wheel: TimingWheel;
  private readonly pool: BoundedPool;
  private readonly targets = new Map<number, CheckedTarget>();
  /** Domains with a check queued or running: never two checks of one domain at once. */
  private readonly busy = new Set<number>();
  private cursor = 0;
  private lastFullSyncMs: number | null = null;
  private syncing: Promise<void> | null = null;
  private ticks = 0;
  private readonly ticksPerSync: number;
  readonly stats: SchedulerStats = { targets: 0, dispatched: 0, skippedBusy: 0, failedRecords: 0 };

  constructor(
    private readonly settings: UptimeSettings,
    private readonly source: TargetSource,
    private readonly sink: CheckSink,
    private readonly clock: Clock,
    private readonly onError: (msg: string, fields: Record<string, unknown>) => void = () => undefined,
    private readonly probe: Probe = tcpProbe,
  ) {
    this.wheel = new TimingWheel(settings.intervalMs, slotCountFor(settings.intervalMs));
    this.pool = new BoundedPool(settings.concurrency);
    this.ticksPerSync = Math.max(1, Math.round(SYNC_EVERY_MS / this.wheel.slotMs));
  }

  /** Applies target changes from the source; one sync at a time, concurrent callers share it. */
  sync(nowMs: number): Promise<void> {
    this.syncing ??= this.pull(nowMs).finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async pull(nowMs: number): Promise<void> {
    const full = this.lastFullSyncMs === null || nowMs - this.lastFullSyncMs >= this.settings.intervalMs;
    const { changes, cursor } = await this.source.changesSince(full ? 0 : this.cursor);
    if (full) {
      this.lastFullSyncMs = nowMs;
      const seen = new Set(changes.map((c) => c.domainId));
      for (const id of [...this.targets.keys()]) if (!seen.has(id)) this.drop(id);
    }
    this.cursor = Math.max(this.cursor, cursor);
    for (const c of changes) {
      if (c.monitored && c.ip !== null && ownsDomain(this.settings.partition, c.domainId)) {
        // A new address replaces the old one in place: the next check (same slot) goes to it.
        this.targets.set(c.domainId, { domainId: c.domainId, accountId: c.accountId, ip: c.ip });
        this.wheel.add(c.domainId);
      } else {
        this.drop(c.domainId);
      }
    }
    this.stats.targets = this.targets.size;
  }

  private drop(id: number): void {
    this.targets.delete(id);
    this.wheel.remove(id);
  }

  /**
   * Syncs targets, starts the checks of every slot due at `now`, and resolves once no
   * check is queued or running any more (the production timer does not wait for that).
   * Returns how many checks this call started.
   */
  async runDue(now: Date = this.clock.now()): Promise<number> {
    await this.sync(now.getTime());
    const started = this.dispatchDue(now);
    await this.idle();
    return started;
  }

  /**
   * What the production timer calls once per slot: syncs targets (every few ticks, about
   * once a second) and starts due checks without waiting for them.
   */
  async tick(now: Date = this.clock.now()): Promise<number> {
    if (this.ticks++ % this.ticksPerSync === 0) await this.sync(now.getTime());
    return this.dispatchDue(now);
  }

  private dispatchDue(now: Date): number {
    let started = 0;
    for (const id of this.wheel.due(now.getTime())) {
      const target = this.targets.get(id);
      if (!target) continue;
      if (this.busy.has(id)) {
        // Still being checked from its previous turn (a backlog of timeouts): one check per domain at a time.
        this.stats.skippedBusy += 1;
        continue;
      }
      this.busy.add(id);
      started += 1;
      this.stats.dispatched += 1;
      void this.pool.run(() => this.check(target)).finally(() => this.busy.delete(id));
    }
    return started;
  }

  private async check(target: CheckedTarget): Promise<void> {
    // Read at the check, not at dispatch: a DDNS change that arrived while queued is honoured.
    const current = this.targets.get(target.domainId) ?? target;
    const at = this.clock.now();
    const result = await checkHost(
      current.ip,
      this.settings.ports,
      this.settings.timeoutMs,
      this.probe,
      this.settings.allowPrivateTargets,
    );
    try {
      await this.sink.record(current, at, result);
    } catch (e) {
      this.stats.failedRecords += 1;
      this.onError('uptime check not recorded', {
        domain_id: current.domainId,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }

  /** Resolves once no check is queued or running. */
  idle(): Promise<void> {
    return this.pool.idle();
  }
}
