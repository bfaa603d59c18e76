import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Cron } from '@nestjs/schedule';
import { ACCOUNTS } from '../../../projections/accounts.projection';
import { emailAuthDecider } from '../../email-auth/domain/email-auth.decider';
import { emailAuthStream } from '../../email-auth/domain/email-auth.events';
import { generatedRecords } from '../../email-auth/domain/records';
import { LiveRecords } from '../../email-auth/application/live-records';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { LOGGER, Logger } from '../../shared/logger';
import { AlertEvent } from '../domain/alert.events';
import { ObserveAlert } from './alert.commands';

const CHECKS_AT_ONCE = 8;

/** Resolver answers that say "no such record" (as opposed to a lookup that failed). */
const DEFINITE_ABSENCE = new Set(['ENOTFOUND', 'ENODATA']);

export interface RecordCheckResult {
  checked_at: string;
  domains: Array<{
    domain: string;
    needed: number;
    missing: string[];
    outcome: 'clear' | 'firing' | 'inconclusive';
    alert: string | null;
  }>;
}

/**
 * Alert rule (a) of contract §9: every domain of an Email Authentication add-on has its
 * needed records (libs/email-auth's generated records) looked up through VERIFY_RESOLVER,
 * the same way the read API's "live in DNS" is, and the result goes to the domain's
 * `record_missing` alert stream. A lookup that failed (timeout, SERVFAIL) is no
 * observation at all: an unreachable resolver must neither raise nor resolve anything.
 */
@Injectable()
export class RecordAlertJob {
  constructor(
    private readonly projections: ProjectionEngine,
    private readonly streams: EventStreams,
    private readonly live: LiveRecords,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Cron('17 * * * *', { name: 'email-auth-record-alerts', timeZone: 'UTC' })
  async scheduled(): Promise<void> {
    if (!this.config.roles.includes('worker')) return;
    // Every worker runs the cron: the hour is the observation key, so the second worker's run of the same hour is stale.
    const hour = new Date(Math.floor(this.clock.now().getTime() / 3_600_000) * 3_600_000);
    try {
      await this.run(hour);
    } catch (e) {
      this.logger.error('email-auth record alerts failed', { error: (e as Error).message });
    }
  }

  async run(now: Date = this.clock.now()): Promise<RecordCheckResult> {
    const at = now.toISOString();
    const accounts = await this.projections
      .readModel(ACCOUNTS)
      .find({ 'email_auth.tier': { $in: ['standard', 'enterprise'] } });
    const result: RecordCheckResult = { checked_at: at, domains: [] };
    const zones = accounts
      .filter((a) => !a.disabled)
      .flatMap((a) => (a.email_auth?.domains ?? []).map((zone) => ({ accountId: a.id, zone })))
      .sort((a, b) => a.zone.localeCompare(b.zone));
    // A few domains at a time: each check waits on DNS (up to the resolver's timeout), not on this process.
    for (let i = 0; i < zones.length; i += CHECKS_AT_ONCE) {
      const outcomes = await Promise.all(
        zones.slice(i, i + CHECKS_AT_ONCE).map(({ accountId, zone }) =>
          this.checkZone(accountId, zone, at).catch((e: Error) => {
            // One zone's failure must not hold back the others' check.
            this.logger.error('email-auth record alerts: zone failed', { zone, error: e.message });
            return null;
          }),
        ),
      );
      for (const outcome of outcomes) if (outcome) result.domains.push(outcome);
    }
    return result;
  }

  private async checkZone(
    accountId: number,
    zone: string,
    at: string,
  ): Promise<RecordCheckResult['domains'][number] | null> {
    const { state } = await this.streams.loadState(emailAuthStream(zone), emailAuthDecider);
    if (state.accountId !== accountId) return null; // settings an earlier owner left
    const needed = generatedRecords(state);
    if (needed.length === 0) return null;
    const records = await this.live.check(zone, needed);
    const missing = records.filter((r) => !r.live).map((r) => r.name);
    const base = { domain: zone, needed: needed.length, missing };
    if (records.some((r) => !r.live && r.error !== null && !DEFINITE_ABSENCE.has(r.error)))
      return { ...base, outcome: 'inconclusive', alert: null };
    const verdict = missing.length > 0 ? 'firing' : 'clear';
    const events: AlertEvent[] = await this.commands.execute(
      new ObserveAlert(
        {
          type: 'EvaluateAlert',
          account_id: accountId,
          zone,
          rule: 'record_missing',
          observed: at,
          at,
          verdict,
          figures: { missing, needed: needed.length },
        },
        `alert:${accountId}-${zone}:record_missing:${at}`,
      ),
    );
    const logged = events.find((e) => e.type === 'AlertRaised' || e.type === 'AlertResolved');
    return {
      ...base,
      outcome: verdict,
      alert: logged ? (logged.type === 'AlertRaised' ? 'raised' : 'resolved') : null,
    };
  }
}
