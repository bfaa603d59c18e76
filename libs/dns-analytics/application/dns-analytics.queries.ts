import { Inject, Injectable } from '@nestjs/common';
import { AccountDirectory } from '../../accounts/application/account-directory';
import type { Plan } from '../../accounts/domain/account.events';
import { DOMAINS } from '../../../projections/domains.projection';
import { ZONES } from '../../../projections/zones.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { forbidden, notFound } from '../../shared/errors';
import { countryName } from '../domain/country-name';
import { ALL_DOMAINS, bucketSize, bucketStart } from '../domain/rollup';
import { buildSummary, Window } from '../domain/summary';
import { volumePoint, volumeSlots } from '../domain/volume';
import { QUERY_LOG_STORE, QueryLogStore, RawFilter, StoredRow } from './query-log.store';

export const SUMMARY_PLAN_MESSAGE = 'DNS Analytics requires Pro or Elite';
export const QUERIES_PLAN_MESSAGE = 'Recent query data requires Pro or Elite';
export const EXPORT_PLAN_MESSAGE = 'Data export requires Elite';
export const ANALYTICS_DOMAIN_NOT_FOUND = 'Domain not found';

const HOUR = bucketSize('hour');
const DAY = bucketSize('day');
/** Rows an export reads per page: bounds its memory whatever the range holds. */
const EXPORT_PAGE = 1000;

export const recentView = (r: StoredRow) => ({
  qname: r.qname,
  qtype: r.qtype,
  rcode: r.rcode,
  client_ip: r.clientIp,
  country_code: r.country,
  timestamp: new Date(r.ts).toISOString(),
  response_ms: r.responseMs,
  domain: r.domain,
});

/** Start of the current UTC month: recent queries never reach further back. */
export const monthStart = (now: Date): number => Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);

@Injectable()
export class DnsAnalyticsQueries {
  constructor(
    @Inject(QUERY_LOG_STORE) private readonly store: QueryLogStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly directory: AccountDirectory,
    private readonly projections: ProjectionEngine,
  ) {}

  /** The plan gate of each endpoint, before anything else is looked at. */
  async requirePlan(accountId: number, allowed: Plan[], message: string): Promise<void> {
    const { state } = await this.directory.load(accountId);
    if (!state.exists) throw notFound('Account not found');
    if (!allowed.includes(state.plan)) throw forbidden('plan_required', message);
  }

  /**
   * A `domain` filter names one of the account's zones or dynamic-DNS hosts; anything
   * else, another account's included, does not exist for the caller.
   */
  async filterFor(accountId: number, domain: string | undefined): Promise<RawFilter> {
    if (domain === undefined) return { accountId, domain: null };
    const name = domain.trim().toLowerCase().replace(/\.$/, '');
    const [zone, host] = await Promise.all([
      this.projections.readModel(ZONES).findOne({ name, account_id: accountId }),
      this.projections.readModel(DOMAINS).findOne({ fqdn: name, account_id: accountId }),
    ]);
    if (!zone && !host) throw notFound(ANALYTICS_DOMAIN_NOT_FOUND);
    return { accountId, domain: name };
  }

  async summary(filter: RawFilter, window: Window) {
    const now = this.clock.now().getTime();
    const domain = filter.domain ?? ALL_DOMAINS;
    const sum = (g: 'hour' | 'day', from: number, to: number) =>
      this.store.sumRollups(filter.accountId, domain, g, from, to);
    const hour = bucketStart(now, 'hour');
    const day = bucketStart(now, 'day');
    const first24 = hour - 23 * HOUR;
    const [last24, last7, last30, previous] = await Promise.all([
      sum('hour', first24, hour),
      sum('day', day - 6 * DAY, day),
      sum('day', day - 29 * DAY, day),
      sum('hour', first24 - 7 * DAY, first24 - 1),
    ]);
    // Country names come from ICU (countryName), so this process never loads the IP databases for them.
    return buildSummary(
      {
        window: window === '24h' ? last24 : window === '7d' ? last7 : last30,
        total24h: last24.total,
        total7d: last7.total,
        total30d: last30.total,
        previous7d: previous.total,
      },
      countryName,
    );
  }

  /** The volume chart's series (docs/dns-analytics-volume.md): one rollup bucket per point. */
  async volume(filter: RawFilter, window: Window) {
    const { granularity, starts } = volumeSlots(this.clock.now().getTime(), window);
    const domain = filter.domain ?? ALL_DOMAINS;
    const counts = await Promise.all(
      starts.map((start) => this.store.sumRollups(filter.accountId, domain, granularity, start, start)),
    );
    return {
      window,
      domain: filter.domain,
      bucket_seconds: bucketSize(granularity) / 1000,
      points: starts.map((start, i) => volumePoint(start, counts[i])),
    };
  }

  async recent(filter: RawFilter, limit: number) {
    const rows = await this.store.recent(filter, monthStart(this.clock.now()), limit);
    return { queries: rows.map(recentView) };
  }

  /** Every row of `[from, to)`, oldest first, one page in memory at a time. */
  async *export(filter: RawFilter, from: number, to: number): AsyncGenerator<StoredRow> {
    let after: { ts: number; id: string } | null = null;
    for (;;) {
      const page = await this.store.page(filter, from, to, after, EXPORT_PAGE);
      yield* page;
      if (page.length < EXPORT_PAGE) return;
      const last = page[page.length - 1];
      after = { ts: last.ts, id: last.id };
    }
  }
}
