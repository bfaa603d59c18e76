import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { CLOCK, Clock } from '../../shared/clock';
import { LOGGER, Logger } from '../../shared/logger';
import { QUERY_LOG_STORE, QueryLogStore } from './query-log.store';
import { retentionCutoffs } from './retention';

const EVERY_MS = 3_600_000;

/** Prunes the query log hourly in the `worker` role (a few deletes by indexed time). */
@Injectable()
export class QueryLogRetention implements OnModuleInit, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(QUERY_LOG_STORE) private readonly store: QueryLogStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    if (!this.config.roles.includes('worker')) return;
    this.timer = setInterval(
      () => void this.run().catch((e: Error) => this.logger.warn('query log retention failed', { error: e.message })),
      EVERY_MS,
    );
    this.timer.unref();
  }

  async run(): Promise<{ rows: number; rollups: number }> {
    const c = retentionCutoffs(this.clock.now());
    const pruned = await this.store.prune(c.rawBefore, c.hourlyBefore, c.dailyBefore);
    if (pruned.rows || pruned.rollups) this.logger.info('query log pruned', pruned);
    return pruned;
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
