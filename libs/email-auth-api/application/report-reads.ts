import { Inject, Injectable } from '@nestjs/common';
import { DmarcFailureReportDoc, DMARC_FAILURE_REPORTS } from '../../../projections/dmarc-failure-reports.projection';
import { DMARC_REPORT_STATS } from '../../../projections/dmarc-report-stats.projection';
import { DmarcReportDoc, DMARC_REPORTS } from '../../../projections/dmarc-reports.projection';
import { TLS_REPORTS } from '../../../projections/tls-reports.projection';
import { PublishedPolicy } from '../../dmarc-reports/domain/aggregate-report';
import { FAILURE_REPORT_SEAL } from '../../dmarc-reports/domain/report.events';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { SecretBox, SECRET_BOX } from '../../shared/crypto';
import { notFound, validationFailed } from '../../shared/errors';
import { afterCursor, CursorPosition, page } from '../domain/cursor';
import { foldSources, foldStats, foldTls, passRate, windowDays } from '../domain/report-stats';
import { cachedRowPage, EncodedRowPage, freshRowPage, heldFreshRowPage } from './encoded-row-page';
import { pageIsFinal, ReportRowPages } from './report-row-pages';
import { RowPageCache } from './row-page-cache';
import { SenderIdentity } from './sender-identity';

/**
 * What a caller may read: the account and the zones visible to it (an email-auth key's
 * selection, or the account's add-on zones for the dashboard), and whether failure-report
 * subjects and full mail-from addresses are shown.
 */
export interface ReportScope {
  accountId: number;
  zones: string[];
  subjects: boolean;
}

/** Who may read one report: the account, and whether the report's zone is visible to the caller. */
export interface ReportAccess {
  accountId: number;
  sees(zone: string): boolean | Promise<boolean>;
}

export interface ListQuery {
  days: number;
  cursor: CursorPosition | null;
  limit: number;
}

export const REPORT_NOT_FOUND = 'No aggregate report by that id on this key.';

/** Sources looked up in reverse DNS per request, by volume; the rest are matched on their network only. */
export const PTR_LOOKUPS_PER_REQUEST = 200;
/** Entries of each sources list returned (largest first). */
export const SOURCES_LISTED = 100;

/** Row cursors: the row's index in its report, which never changes (rows are only ever added at the end of ingestion). */
const rowCursor = (c: CursorPosition | null): number => {
  if (!c) return -1;
  const n = Number(c.at);
  if (!/^\d+$/.test(c.at) || !Number.isSafeInteger(n))
    throw validationFailed('cursor is not a cursor this API returned');
  return n;
};

/**
 * The report-backed reads of the email-auth API (and their dashboard mirrors): DMARC
 * summary, sources, aggregate reports and rows, failure reports, TLS-RPT summary, from
 * the report read models (dmarc_reports, dmarc_report_row_blocks, dmarc_report_stats,
 * dmarc_failure_reports, tls_reports). Lists are newest first on keys that never change
 * (period start or arrival, then id), so cursors stay valid while reports arrive.
 */
@Injectable()
export class ReportReads {
  constructor(
    private readonly projections: ProjectionEngine,
    private readonly senders: SenderIdentity,
    private readonly rowPages: ReportRowPages,
    private readonly pageCache: RowPageCache,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SECRET_BOX) private readonly secretBox: SecretBox,
  ) {}

  private window(days: number) {
    const dates = windowDays(this.clock.now(), days);
    return { dates, from: `${dates[0]}T00:00:00.000Z` };
  }

  private reports() {
    return this.projections.readModel(DMARC_REPORTS);
  }

  async dmarcSummary(s: ReportScope, zone: string, days: number) {
    const { dates, from } = this.window(days);
    const [stats, latest, reports] = await Promise.all([
      this.projections
        .readModel(DMARC_REPORT_STATS)
        .find(
          { zone, account_id: s.accountId, day: { $gte: dates[0] } },
          { projection: { day: 1, messages: 1, passing: 1, disposition: 1, dkim: 1, spf: 1 } },
        ),
      this.reports().findOne({ zone, account_id: s.accountId }, { sort: { begin: -1, _id: -1 } }),
      this.reports().countDocuments({ zone, account_id: s.accountId, begin: { $gte: from } }),
    ]);
    const folded = foldStats(stats, dates);
    return {
      domain: zone,
      days,
      reports,
      messages: folded.messages,
      passing: folded.passing,
      pass_rate: folded.pass_rate,
      published_policy: latest ? policyView(latest.policy) : null,
      disposition: folded.disposition,
      dkim: folded.dkim,
      spf: folded.spf,
      daily: folded.daily,
    };
  }

  async dmarcSources(s: ReportScope, zone: string, days: number) {
    const { dates } = this.window(days);
    await this.senders.ready();
    const stats = await this.projections
      .readModel(DMARC_REPORT_STATS)
      .find({ zone, account_id: s.accountId, day: { $gte: dates[0] } }, { projection: { sources: 1 } });
    const sources = foldSources(stats);
    const identities = await Promise.all(
      sources.map((src, i) => this.senders.identify(src.ip, i < PTR_LOOKUPS_PER_REQUEST)),
    );
    const services = new Map<
      string,
      { id: string; name: string; messages: number; passing: number; ips: Set<string> }
    >();
    const unidentified: Array<Record<string, unknown>> = [];
    const domains = new Map<string, { messages: number; passing: number }>();
    let messages = 0;
    let unidentifiedMessages = 0;
    sources.forEach((src, i) => {
      const id = identities[i];
      messages += src.messages;
      if (id.service) {
        const svc = services.get(id.service.id) ?? { ...id.service, messages: 0, passing: 0, ips: new Set<string>() };
        svc.messages += src.messages;
        svc.passing += src.passing;
        svc.ips.add(src.ip);
        services.set(id.service.id, svc);
        return;
      }
      unidentifiedMessages += src.messages;
      for (const [domain, d] of src.domains) {
        const total = domains.get(domain) ?? { messages: 0, passing: 0 };
        total.messages += d.messages;
        total.passing += d.passing;
        domains.set(domain, total);
      }
      unidentified.push({
        source_ip: src.ip,
        ptr: id.ptr,
        country: id.country,
        network: { asn: id.asn, org: id.as_org },
        messages: src.messages,
        passing: src.passing,
        pass_rate: passRate(src.passing, src.messages),
        sending_domains: [...src.domains.keys()].sort(),
      });
    });
    return {
      domain: zone,
      days,
      messages,
      identified_messages: messages - unidentifiedMessages,
      unidentified_messages: unidentifiedMessages,
      services: [...services.values()]
        .sort((a, b) => b.messages - a.messages || (a.id < b.id ? -1 : 1))
        .map((v) => ({
          id: v.id,
          name: v.name,
          messages: v.messages,
          passing: v.passing,
          pass_rate: passRate(v.passing, v.messages),
          source_ips: v.ips.size,
        })),
      unidentified_sources: unidentified.slice(0, SOURCES_LISTED),
      unidentified_source_count: unidentified.length,
      unidentified_sending_domains: [...domains.entries()]
        .sort((a, b) => b[1].messages - a[1].messages || (a[0] < b[0] ? -1 : 1))
        .slice(0, SOURCES_LISTED)
        .map(([domain, d]) => ({
          domain,
          messages: d.messages,
          passing: d.passing,
          pass_rate: passRate(d.passing, d.messages),
        })),
    };
  }

  async dmarcReports(s: ReportScope, zones: string[], q: ListQuery) {
    const { from } = this.window(q.days);
    const docs = await this.reports().find(
      { account_id: s.accountId, zone: { $in: zones }, begin: { $gte: from }, ...afterCursor(q.cursor, 'begin') },
      { sort: { begin: -1, _id: -1 }, limit: q.limit + 1 },
    );
    const { items, next_cursor } = page(docs, q.limit, (d) => d.begin);
    return { data: items.map(reportView), next_cursor };
  }

  /**
   * One report with a page of its rows, ready to send (the API's heaviest read: the rows
   * are concatenated from their stored JSON, see ReportRowPages). Same body as the object
   * `{...report, rows: {data, next_cursor}}` would serialise to. The report is looked up on
   * every request, cached page or not: the caller's access is checked against it, and a
   * report deleted since (retention) answers 404 and leaves the cache.
   */
  async dmarcReportPage(access: ReportAccess, id: string, q: Omit<ListQuery, 'days'>): Promise<EncodedRowPage> {
    const report = await this.reports().findOne({ _id: id });
    if (!report) this.pageCache.dropReport(id);
    if (!report || report.account_id !== access.accountId || !(await access.sees(report.zone)))
      throw notFound(REPORT_NOT_FOUND, 'report_not_found');
    const after = rowCursor(q.cursor);
    const generation = this.projections.generationOf(DMARC_REPORTS.projection);
    const cached = this.pageCache.get(generation, id, after, q.limit);
    if (cached) return cachedRowPage(cached, this.pageCache);
    const rows = await this.rowPages.page(id, after, q.limit);
    const head = JSON.stringify(reportView(report));
    const page = freshRowPage(
      Buffer.from(
        `${head.slice(0, -1)},"rows":{"data":[${rows.dataJson}],"next_cursor":${JSON.stringify(rows.nextCursor)}}}`,
      ),
    );
    if (this.pageCache.enabled && pageIsFinal(report.record_count, after, q.limit, rows)) {
      // Compressed first: the ETag then comes from the gzip trailer instead of a pass over the JSON.
      const gzip = page.gzip();
      const held = { etag: page.etag, gzip, jsonBytes: page.json().length };
      this.pageCache.set(generation, id, after, q.limit, held);
      return heldFreshRowPage(page, held, this.pageCache);
    }
    return page;
  }

  async failureReports(s: ReportScope, zones: string[], q: ListQuery) {
    const { from } = this.window(q.days);
    await this.senders.ready();
    const docs = await this.projections.readModel(DMARC_FAILURE_REPORTS).find(
      {
        account_id: s.accountId,
        zone: { $in: zones },
        received_at: { $gte: from },
        ...afterCursor(q.cursor, 'received_at'),
      },
      { sort: { received_at: -1, _id: -1 }, limit: q.limit + 1 },
    );
    const { items, next_cursor } = page(docs, q.limit, (d) => d.received_at);
    return { data: items.map((d) => this.failureView(d, s.subjects)), next_cursor };
  }

  async tlsSummary(s: ReportScope, zone: string, days: number) {
    const { dates, from } = this.window(days);
    const reports = await this.projections
      .readModel(TLS_REPORTS)
      .find(
        { zone, account_id: s.accountId, begin: { $gte: from } },
        { projection: { begin: 1, successful_sessions: 1, failed_sessions: 1, policies: 1 } },
      );
    return { domain: zone, days, ...foldTls(reports, dates) };
  }

  /** The seed's privacy rule: subject and full mail-from only with the flag (opened then); message ids are never kept. */
  private failureView(d: DmarcFailureReportDoc, subjects: boolean) {
    const view = {
      id: d._id,
      domain: d.zone,
      reporter: d.reporter,
      received_at: d.received_at,
      arrival_date: d.arrival_date,
      feedback_type: d.feedback_type,
      source_ip: d.source_ip,
      country: d.source_ip ? this.senders.network(d.source_ip).country : null,
      auth_failure: d.auth_failure,
      delivery_result: d.delivery_result,
      authentication_results: d.authentication_results,
      dkim_domain: d.dkim_domain,
      dkim_selector: d.dkim_selector,
      mail_from_domain: d.mail_from_domain,
      rcpt_domain: d.rcpt_domain,
    };
    if (!subjects) return view;
    const open = (sealed: string | null) =>
      sealed === null ? null : this.secretBox.openString(sealed, FAILURE_REPORT_SEAL);
    return { ...view, subject: open(d.subject_sealed), mail_from: open(d.mail_from_sealed) };
  }
}

const policyView = (p: PublishedPolicy) => ({
  domain: p.domain,
  p: p.p,
  sp: p.sp ?? null,
  pct: p.pct ?? null,
  adkim: p.adkim ?? null,
  aspf: p.aspf ?? null,
});

function reportView(d: DmarcReportDoc) {
  return {
    id: d._id,
    domain: d.zone,
    org_name: d.org_name,
    email: d.email,
    report_id: d.report_id,
    begin: d.begin,
    end: d.end,
    received_at: d.received_at,
    policy_published: policyView(d.policy),
    record_count: d.record_count,
    messages: d.message_count,
    passing: d.passing_count,
    pass_rate: passRate(d.passing_count, d.message_count),
  };
}
