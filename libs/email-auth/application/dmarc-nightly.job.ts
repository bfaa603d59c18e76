import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { EMAIL_AUTH_ZONES } from '../../../projections/email-auth.projection';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { CLOCK, Clock } from '../../shared/clock';
import { LOGGER, Logger } from '../../shared/logger';
import { METRICS, Metrics } from '../../shared/metrics';
import { NightZone, RecordDmarcNight, RepublishEmailAuth } from './email-auth.commands';

export interface NightlyResult {
  night: string;
  now: string;
  zones: NightZone[];
  /** Zones whose records were published again from their settings (the repair pass). */
  republished: number;
}

/**
 * The DMARC wizard's nightly job (seed: 02:00 UTC over the last 7 days). For each zone
 * whose wizard is open it reads aggregate totals through the DMARC_AGGREGATE_STATS port (bound by the report-ingestion context)
 * and records them with one more day at the stage. A night is recorded once per zone:
 * the decider ignores a night it has seen, and the event id is derived from zone and
 * night, so a rerun, a retry or a second worker changes nothing. It runs each night from
 * the `dmarc-nightly` process manager (dmarc-nightly.process.ts), and on demand from
 * `POST /admin/jobs/dmarc-nightly`.
 *
 * Its answer keeps the promise a user's command keeps: once it returns, the read models
 * show what it recorded (the wizard's day count and night), so an operator who runs it and
 * opens the wizard sees the night, however loaded the machine.
 */
@Injectable()
export class DmarcNightlyJob {
  constructor(
    private readonly commands: CommandBus,
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  async run(now: Date = this.clock.now()): Promise<NightlyResult> {
    const night = now.toISOString().slice(0, 10);
    const zones = await this.projections.readModel(EMAIL_AUTH_ZONES).find({}, { sort: { zone: 1 } });
    const result: NightlyResult = { night, now: now.toISOString(), zones: [], republished: 0 };
    for (const { zone } of zones.filter((z) => z.wizard_stage !== undefined)) {
      try {
        const outcome: NightZone = await this.commands.execute(new RecordDmarcNight(zone, night, now));
        result.zones.push(outcome);
        this.count(outcome.recorded ? 'recorded' : 'already_recorded');
      } catch (e) {
        this.count('failed');
        // One zone's failure (a store hiccup) must not hold back the others' night.
        this.logger.error('dmarc nightly job: zone failed', { zone, night, error: (e as Error).message });
      }
    }
    for (const { zone } of zones) {
      try {
        if (await this.commands.execute(new RepublishEmailAuth(zone))) result.republished += 1;
      } catch (e) {
        // A zone deleted (or now another account's) has nothing to publish.
        this.logger.warn('dmarc nightly job: records not republished', { zone, error: (e as Error).message });
      }
    }
    if (result.republished > 0 || result.zones.some((z) => z.recorded)) {
      await this.projections.waitFor(await this.store.headPosition(), 5000);
    }
    this.logger.info('dmarc nightly job done', {
      night,
      zones: result.zones.length,
      recorded: result.zones.filter((z) => z.recorded).length,
    });
    return result;
  }

  private count(result: 'recorded' | 'already_recorded' | 'failed', n = 1): void {
    this.metrics
      .counter('dmarc_nightly_zones_total', 'DMARC wizard nightly job: zones by outcome', ['result'])
      .labels(result)
      .inc(n);
  }
}
