import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { AggregateRecordsAdded, AggregateReportReceived, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';
import { chunkStats } from '../libs/email-auth-api/domain/report-stats';

/**
 * dmarc_report_stats: one document per records chunk of an aggregate report (at most
 * 1,000 records), holding that chunk's message, disposition, DKIM/SPF and per-source
 * totals, with the report's zone, account and day (period start, UTC). The email-auth
 * summary and sources endpoints fold these (a handful per report) instead of scanning
 * rows. Keyed by report and chunk offset, so replaying a chunk rewrites the same
 * document: counts are never added twice. The header (first in the report's stream) is
 * kept in dmarc_report_stats_owners so chunks carry the account without another
 * projection's collection.
 */
export const dmarcReportStatsProjection: ProjectionDefinition = {
  name: 'dmarc_report_stats',
  version: 1,
  collections: ['dmarc_report_stats', 'dmarc_report_stats_owners'],
  handles: ['DmarcAggregateReportReceived', 'DmarcAggregateRecordsAdded', 'DmarcReportRetentionApplied'],
  async setup(ctx) {
    await ctx.collection('dmarc_report_stats').createIndex({ zone: 1, day: -1 });
    await ctx.collection('dmarc_report_stats').createIndex({ begin: 1 });
  },
  async apply(raw, ctx) {
    const event = raw as unknown as AggregateReportReceived | AggregateRecordsAdded | ReportRetentionApplied;
    const owners = ctx.collection<{ _id: string; account_id: number; begin: string }>('dmarc_report_stats_owners');
    if (event.type === 'DmarcReportRetentionApplied') {
      await ctx.collection('dmarc_report_stats').deleteMany({ begin: { $lt: event.data.cutoff } });
      await owners.deleteMany({ begin: { $lt: event.data.cutoff } });
      return;
    }
    if (event.type === 'DmarcAggregateReportReceived') {
      await owners.replaceOne({ _id: event.data.report_key }, { _id: event.data.report_key, account_id: event.data.account_id, begin: event.data.begin }, { upsert: true });
      return;
    }
    const d = event.data;
    const owner = await owners.findOne({ _id: d.report_key });
    const _id = `${d.report_key}:${d.offset}`;
    await ctx.collection('dmarc_report_stats').replaceOne(
      { _id },
      { _id, report_key: d.report_key, zone: d.zone, account_id: owner?.account_id ?? null, begin: d.begin, day: d.begin.slice(0, 10), ...chunkStats(d.records) },
      { upsert: true },
    );
  },
};
