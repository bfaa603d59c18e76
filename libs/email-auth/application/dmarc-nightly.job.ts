import { Inject, Injectable } from '@nestjs/common';
import { nameBasedEventId } from '../../eventstore/event-id';
import { EVENT_STORE, EventStore, WrongExpectedVersionError } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { EMAIL_AUTH_ZONES } from '../../../projections/email-auth.projection';
import { CLOCK, Clock } from '../../shared/clock';
import { LOGGER, Logger } from '../../shared/logger';
import { METRICS, Metrics } from '../../shared/metrics';
import { emailAuthDecider } from '../domain/email-auth.decider';
import { emailAuthStream } from '../domain/email-auth.events';
import { DMARC_AGGREGATE_STATS, DmarcAggregateStats } from './aggregate-stats.port';
import { EmailAuthService } from './email-auth.service';

const DAY_MS = 86_400_000;
export const WINDOW_DAYS = 7;

export interface NightlyResult {
  night: string;
  now: string;
  zones: Array<{ zone: string; recorded: boolean; messages: number; passing: number; window_from: string; window_to: string }>;
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
 */
@Injectable()
export class DmarcNightlyJob {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly streams: EventStreams,
    private readonly projections: ProjectionEngine,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly records: EmailAuthService,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(DMARC_AGGREGATE_STATS) private readonly stats: DmarcAggregateStats,
  ) {}

  async run(now: Date = this.clock.now()): Promise<NightlyResult> {
    const night = now.toISOString().slice(0, 10);
    const zones = await this.projections.readModel(EMAIL_AUTH_ZONES).find({}, { sort: { zone: 1 } });
    const result: NightlyResult = { night, now: now.toISOString(), zones: [], republished: 0 };
    for (const { zone } of zones.filter((z) => z.wizard_stage !== undefined)) {
      try {
        const outcome = await this.runZone(zone, night, now, this.stats);
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
        if (await this.records.republish(zone)) result.republished += 1;
      } catch (e) {
        // A zone deleted (or now another account's) has nothing to publish.
        this.logger.warn('dmarc nightly job: records not republished', { zone, error: (e as Error).message });
      }
    }
    this.logger.info('dmarc nightly job done', { night, zones: result.zones.length, recorded: result.zones.filter((z) => z.recorded).length });
    return result;
  }

  private count(result: 'recorded' | 'already_recorded' | 'failed', n = 1): void {
    this.metrics.counter('dmarc_nightly_zones_total', 'DMARC wizard nightly job: zones by outcome', ['result']).labels(result).inc(n);
  }

  private async runZone(zone: string, night: string, now: Date, stats: DmarcAggregateStats) {
    const stream = emailAuthStream(zone);
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.streams.loadState(stream, emailAuthDecider);
      const p = state.progression;
      // Counters are per stage: mail from before the stage began does not count for it.
      const from = new Date(Math.max(now.getTime() - WINDOW_DAYS * DAY_MS, p ? Date.parse(p.entered_at) : 0));
      const totals = p ? await stats.totals(zone, from, now) : { messages: 0, passing: 0 };
      const events = emailAuthDecider.decide(
        {
          type: 'RecordNightlyMetrics',
          accountId: state.accountId,
          zone,
          at: now.toISOString(),
          night,
          windowFrom: from.toISOString(),
          windowTo: now.toISOString(),
          messages: totals.messages,
          passing: totals.passing,
        },
        state,
      );
      const summary = { zone, messages: totals.messages, passing: totals.passing, window_from: from.toISOString(), window_to: now.toISOString() };
      if (events.length === 0) return { ...summary, recorded: false };
      try {
        const id = nameBasedEventId(`dmarc-nightly:${zone}:${night}`);
        await this.store.appendToStream(
          stream,
          events.map((e) => ({ id, type: e.type, data: e.data, metadata: { version: 1, actor: 'system', account_id: state.accountId, correlation_id: id } })),
          revision === -1 ? 'no_stream' : revision,
        );
        return { ...summary, recorded: true };
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError) || attempt >= 5) throw e;
      }
    }
  }
}
