import { Inject, Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { EventStreams } from '../../eventstore/event-streams';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { LOGGER, Logger } from '../../shared/logger';
import { REPORT_RETENTION_STREAM, ReportRetentionApplied, retentionCutoff } from '../domain/report.events';

/**
 * Report retention (contract §15: three years). The cutoff is a fact on its own stream;
 * each report projection drops its documents from before it, so read models stay the only
 * writers of their collections and a rebuild applies the same cutoffs again.
 */
@Injectable()
export class ReportRetention {
  constructor(
    private readonly streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Cron('20 3 * * *', { timeZone: 'UTC' })
  async nightly(): Promise<void> {
    if (!this.config.roles.includes('worker') || this.config.workerIndex !== 0) return;
    await this.apply(this.clock.now());
  }

  async apply(now: Date): Promise<string> {
    const cutoff = retentionCutoff(now).toISOString();
    const event: ReportRetentionApplied = {
      type: 'DmarcReportRetentionApplied',
      data: { cutoff, applied_at: now.toISOString() },
    };
    await this.streams.append(REPORT_RETENTION_STREAM, [event], 'any', { actor: 'system' });
    this.logger.info('report retention applied', { cutoff });
    return cutoff;
  }
}
