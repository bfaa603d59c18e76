import { Inject, Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { notFound } from '../../shared/errors';
import { HistoryWindow, historySeries, percentage, unpackBuckets, windowTallies } from '../domain/history';
import { Plan } from '../../accounts/domain/account.events';
import { MONITOR_LIMITS } from '../domain/monitor.decider';
import { currentStatus, dashboard } from '../domain/status';
import { DOMAIN_NOT_FOUND } from './uptime-access';
import { checkAddress } from './uptime-read-model';
import { UPTIME_DOMAINS, UptimeDomainDoc } from '../../../projections/uptime-domains.projection';

const statusOf = (d: UptimeDomainDoc) =>
  currentStatus({
    monitorEnabled: d.monitor_enabled,
    enabledAt: d.enabled_at,
    hasIp: checkAddress(d) !== null,
    last: d.last,
  });

/** The seed's uptime record of one domain at `now`. */
export function uptimeRecord(d: UptimeDomainDoc, now: Date) {
  const w = windowTallies(unpackBuckets(d.hourly), unpackBuckets(d.daily), now);
  const up = d.last?.is_up ?? false;
  return {
    domain_id: d.domain_id,
    fqdn: d.fqdn,
    is_up: up,
    uptime_percentage_24h: percentage(w.h24),
    uptime_percentage_7d: percentage(w.d7),
    uptime_percentage_30d: percentage(w.d30),
    last_check_time: d.last?.at ?? null,
    last_response_time_ms: up ? d.last!.response_time_ms : null,
    current_status: statusOf(d),
    error: d.last && !d.last.is_up ? d.last.error : null,
    monitor_enabled: d.monitor_enabled,
    has_ip: checkAddress(d) !== null,
  };
}

/** Uptime reads, from the uptime read model; percentages are computed at the clock's now. */
@Injectable()
export class UptimeQueries {
  constructor(
    private readonly projections: ProjectionEngine,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private get docs() {
    return this.projections.readModel(UPTIME_DOMAINS);
  }

  private live(accountId: number) {
    return this.docs.find({ account_id: accountId, deleted: false }, { sort: { _id: 1 } });
  }

  private async owned(accountId: number, domainId: number): Promise<UptimeDomainDoc> {
    const doc = await this.docs.findOne({ _id: domainId });
    // Another account's domain does not exist for the caller (contract §1).
    if (!doc || doc.deleted || doc.account_id !== accountId) throw notFound(DOMAIN_NOT_FOUND);
    return doc;
  }

  async domain(accountId: number, domainId: number) {
    return uptimeRecord(await this.owned(accountId, domainId), this.clock.now());
  }

  /** Every live domain of the account with its uptime record, for one screen instead of one request per domain. */
  async domains(accountId: number) {
    const now = this.clock.now();
    return { domains: (await this.live(accountId)).map((d) => uptimeRecord(d, now)) };
  }

  /** Chart series of one domain (docs/uptime-history.md). */
  async history(accountId: number, domainId: number, window: HistoryWindow) {
    const doc = await this.owned(accountId, domainId);
    const now = this.clock.now();
    return {
      domain_id: doc.domain_id,
      fqdn: doc.fqdn,
      window,
      bucket_seconds: window === '24h' ? 3600 : 86400,
      points: historySeries(unpackBuckets(doc.hourly), unpackBuckets(doc.daily), window, now),
    };
  }

  /** The plan's monitoring limit and how much of it is used. */
  async limits(accountId: number, plan: Plan) {
    const docs = await this.live(accountId);
    return {
      plan,
      monitor_limit: MONITOR_LIMITS[plan],
      monitors_enabled: docs.filter((d) => d.monitor_enabled).length,
    };
  }

  async dashboard(accountId: number) {
    const now = this.clock.now();
    const docs = await this.live(accountId);
    return dashboard(
      docs.map((d) => ({
        status: statusOf(d),
        last: d.last,
        windows: windowTallies(unpackBuckets(d.hourly), unpackBuckets(d.daily), now),
      })),
    );
  }

  async realtime(accountId: number) {
    const docs = await this.live(accountId);
    return docs
      .filter((d) => d.monitor_enabled)
      .map((d) => ({
        domain_id: d.domain_id,
        fqdn: d.fqdn,
        is_up: d.last?.is_up ?? false,
        last_check_time: d.last?.at ?? null,
      }));
  }
}
