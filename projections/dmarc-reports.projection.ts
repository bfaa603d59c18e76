import { AggregateRecord, PublishedPolicy } from '../libs/dmarc-reports/domain/aggregate-report';
import { AggregateRecordsAdded, AggregateReportReceived, chunkRecords, ReportRetentionApplied, ReportSource } from '../libs/dmarc-reports/domain/report.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';

/** `_id` of a report row: the report and the record's index in it, so a redelivered chunk rewrites the same rows. */
export const reportRowId = (reportKey: string, index: number): string => `${reportKey}:${index}`;

/** One accepted aggregate report: its header and the totals summed from its records at ingestion. */
export interface DmarcReportDoc {
  /** The report key (reporter and report id hashed). */
  _id: string;
  id: string;
  zone: string;
  account_id: number;
  org_name: string;
  email: string;
  report_id: string;
  begin: string;
  end: string;
  generator: string | null;
  policy: PublishedPolicy;
  record_count: number;
  message_count: number;
  passing_count: number;
  received_at: string;
  source: ReportSource;
}

/** One record of an aggregate report, with its report's zone and period start. */
export type DmarcReportRowDoc = AggregateRecord & {
  _id: string;
  report_key: string;
  zone: string;
  begin: string;
  /** The record's index in its report (row cursors page on it). */
  index: number;
};

export const DMARC_REPORTS = defineReadModel<DmarcReportDoc>('dmarc_reports', 'dmarc_reports', [{ keys: { zone: 1, begin: -1 } }, { keys: { account_id: 1, begin: -1 } }]);

export const DMARC_REPORT_ROWS = defineReadModel<DmarcReportRowDoc>('dmarc_reports', 'dmarc_report_rows', [
  { keys: { report_key: 1, index: 1 } },
  { keys: { zone: 1, begin: -1 } },
]);

/**
 * dmarc_reports: one document per accepted aggregate report (reporter, period, published
 * policy, record/message/passing totals). dmarc_report_rows: one document per record
 * (source IP, count, disposition, DKIM/SPF results, header_from), carrying the report's
 * zone and period start so rows page by zone and time as well as by report.
 */
export const dmarcReportsProjection = defineProjection<AggregateReportReceived | AggregateRecordsAdded | ReportRetentionApplied>({
  name: 'dmarc_reports',
  version: 1,
  readModels: [DMARC_REPORTS, DMARC_REPORT_ROWS],
  handles: ['DmarcAggregateReportReceived', 'DmarcAggregateRecordsAdded', 'DmarcReportRetentionApplied'],
  async apply(event, ctx) {
    const reports = ctx.collection(DMARC_REPORTS);
    const rows = ctx.collection(DMARC_REPORT_ROWS);
    switch (event.type) {
      case 'DmarcReportRetentionApplied':
        await rows.deleteMany({ begin: { $lt: event.data.cutoff } });
        await reports.deleteMany({ begin: { $lt: event.data.cutoff } });
        return;
      case 'DmarcAggregateReportReceived': {
        const d = event.data;
        await reports.replaceOne(
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
      case 'DmarcAggregateRecordsAdded': {
        const d = event.data;
        await rows.bulkWrite(
          chunkRecords(d).map((record, i) => {
            const index = d.offset + i;
            const _id = reportRowId(d.report_key, index);
            return { replaceOne: { filter: { _id }, replacement: { _id, report_key: d.report_key, zone: d.zone, begin: d.begin, index, ...record }, upsert: true } };
          }),
        );
        return;
      }
    }
  },
});
