import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { AggregateRecordsAdded, AggregateReportReceived, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';

/** `_id` of a report row: the report and the record's index in it, so a redelivered chunk rewrites the same rows. */
export const reportRowId = (reportKey: string, index: number): string => `${reportKey}:${index}`;

/**
 * dmarc_reports: one document per accepted aggregate report (reporter, period, published
 * policy, record/message/passing totals). dmarc_report_rows: one document per record
 * (source IP, count, disposition, DKIM/SPF results, header_from), carrying the report's
 * zone and period start so rows page by zone and time as well as by report.
 */
export const dmarcReportsProjection: ProjectionDefinition = {
  name: 'dmarc_reports',
  version: 1,
  collections: ['dmarc_reports', 'dmarc_report_rows'],
  handles: ['DmarcAggregateReportReceived', 'DmarcAggregateRecordsAdded', 'DmarcReportRetentionApplied'],
  async setup(ctx) {
    await ctx.collection('dmarc_reports').createIndex({ zone: 1, begin: -1 });
    await ctx.collection('dmarc_reports').createIndex({ account_id: 1, begin: -1 });
    await ctx.collection('dmarc_report_rows').createIndex({ report_key: 1, index: 1 });
    await ctx.collection('dmarc_report_rows').createIndex({ zone: 1, begin: -1 });
  },
  async apply(raw, ctx) {
    const event = raw as unknown as AggregateReportReceived | AggregateRecordsAdded | ReportRetentionApplied;
    if (event.type === 'DmarcReportRetentionApplied') {
      await ctx.collection('dmarc_report_rows').deleteMany({ begin: { $lt: event.data.cutoff } });
      await ctx.collection('dmarc_reports').deleteMany({ begin: { $lt: event.data.cutoff } });
      return;
    }
    if (event.type === 'DmarcAggregateReportReceived') {
      const d = event.data;
      await ctx.collection('dmarc_reports').replaceOne(
        { _id: d.report_key },
        {
          _id: d.report_key,
          id: d.report_key,
          zone: d.zone,
          account_id: d.account_id,
          org_name: d.org_name,
          email: d.email,
          report_id: d.report_id,
          begin: d.begin,
          end: d.end,
          generator: d.generator ?? null,
          policy: d.policy,
          record_count: d.record_count,
          message_count: d.message_count,
          passing_count: d.passing_count,
          received_at: d.received_at,
          source: d.source,
        },
        { upsert: true },
      );
      return;
    }
    const d = event.data;
    await ctx.collection('dmarc_report_rows').bulkWrite(
      d.records.map((record, i) => {
        const index = d.offset + i;
        const _id = reportRowId(d.report_key, index);
        return { replaceOne: { filter: { _id }, replacement: { _id, report_key: d.report_key, zone: d.zone, begin: d.begin, index, ...record }, upsert: true } };
      }),
    );
  },
};
