import { Inject, Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { EVENT_STORE, EventStore } from '../eventstore/event-store.port';
import { READ_STORE, ReadStore } from '../readstore/read-store.port';
import { CLOCK, Clock } from '../shared/clock';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { LOGGER, Logger } from '../shared/logger';
import { EXPIRING_COLLECTIONS, RETENTION_CRON } from './retention.policy';

export interface RetentionRun {
  at: string;
  /** Events removed from telemetry streams; null where the store reclaims space itself (EventStoreDB scavenge). */
  events_pruned: number | null;
  documents_pruned: number;
}

/**
 * Enforces the retention policy on schedule, in the `worker` role (one process per
 * installation runs it): expired telemetry events leave the event store, and expired
 * read-store documents leave the embedded store (MongoDB's TTL monitor does that there;
 * the delete is harmless beside it). Time is the injected clock's.
 */
@Injectable()
export class RetentionService {
  private running: Promise<RetentionRun> | null = null;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Cron(RETENTION_CRON, { name: 'retention' })
  async scheduled(): Promise<void> {
    if (!this.config.roles.includes('worker')) return;
    try {
      await this.run();
    } catch (e) {
      this.logger.error('retention run failed', { error: (e as Error).message });
    }
  }

  /** One pass; concurrent callers share the pass under way. */
  run(): Promise<RetentionRun> {
    return (this.running ??= this.pass().finally(() => (this.running = null)));
  }

  private async pass(): Promise<RetentionRun> {
    const now = this.clock.now();
    const eventsPruned = await this.events.pruneExpired(now);
    let documentsPruned = 0;
    for (const { collection, field } of EXPIRING_COLLECTIONS) {
      // The embedded store may hand Dates back as ISO strings after a restart (JSON on disk): match both.
      documentsPruned += await this.readStore
        .collection(collection)
        .deleteMany({ $or: [{ [field]: { $lt: now } }, { [field]: { $lt: now.toISOString() } }] });
    }
    const run = { at: now.toISOString(), events_pruned: eventsPruned, documents_pruned: documentsPruned };
    this.logger.info('retention run', run);
    return run;
  }
}
