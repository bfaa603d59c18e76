import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { LOGGER, Logger } from '../../shared/logger';
import { METRICS, Metrics } from '../../shared/metrics';
import { OwnershipConflict } from '../domain/zone-ownership';
import { ZoneOwnership } from './zone-ownership';

/** How long the start-up report waits for the zones read model to catch up with the log. */
const CATCH_UP_MS = 120_000;

/**
 * Reports existing data that breaks the ownership rules (zones imported before they were
 * enforced): at start-up, as the `zone_ownership_conflicts` gauge and one warning per pair,
 * and on demand (`GET /admin/zones/conflicts`, the CLI's `zones:conflicts`). Nothing is deleted:
 * the DNS server already serves such zones only where they are allowed (dns-index-feeder.ts).
 */
@Injectable()
export class ZoneOwnershipReport implements OnApplicationBootstrap {
  private count = 0;

  constructor(
    private readonly ownership: ZoneOwnership,
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) metrics: Metrics,
  ) {
    metrics.gauge(
      'zone_ownership_conflicts',
      'Pairs of existing data breaking the zone ownership rules (zone vs zone, DDNS zone or name server), found at start-up',
      (g) => g.set(this.count),
    );
  }

  onApplicationBootstrap(): void {
    // In the background: a start-up never waits on a projection rebuild for a report.
    void this.atStartUp().catch((e) => this.logger.error('zone ownership report failed', { error: String(e) }));
  }

  private async atStartUp(): Promise<void> {
    await this.projections.waitFor(await this.store.headPosition(), CATCH_UP_MS, ['zones']);
    const conflicts = await this.list();
    for (const c of conflicts) this.logger.warn('zone ownership conflict in existing data', { ...c });
  }

  async list(): Promise<OwnershipConflict[]> {
    const conflicts = await this.ownership.conflicts();
    this.count = conflicts.length;
    return conflicts;
  }
}
