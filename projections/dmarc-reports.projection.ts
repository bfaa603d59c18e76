import { PublishedPolicy } from '../libs/dmarc-reports/domain/aggregate-report';
import {
  AggregateRecordsAdded,
  AggregateReportReceived,
  chunkRecords,
  ReportRetentionApplied,
  ReportSource,
} from '../libs/dmarc-reports/domain/report.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import {
  DMARC_REPORT_ROW_BLOCKS,
  DmarcReportRowBlockDoc,
  placeRows,
  rowBlockId,
  rowBlocksSpanned,
} from './dmarc-report-row-blocks';

/** Identity of a report row: the report and the record's index in it (row cursors carry it). */
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

export const DMARC_REPORTS = defineReadModel<DmarcReportDoc>('dmarc_reports', 'dmarc_reports', [
  { keys: { zone: 1, begin: -1 } },
  { keys: { account_id: 1, begin: -1 } },
]);

/**
 * dmarc_reports: one document per accepted aggregate report (reporter, period, published
 * policy, record/message/passing totals). dmarc_report_row_blocks: the report's records
 * in blocks of consecutive rows, each row pre-serialised as the API sends it (layout and
 * why in dmarc-report-row-blocks.ts), carrying the report's zone and period start.
 * Version 2: blocks replaced version 1's one document per row (rebuilt from the events).
 */
export const dmarcReportsProjection = defineProjection<
  AggregateReportReceived | AggregateRecordsAdded | ReportRetentionApplied
>({
  name: 'dmarc_reports',
  version: 2,
  readModels: [DMARC_REPORTS, DMARC_REPORT_ROW_BLOCKS],
  handles: ['DmarcAggregateReportReceived', 'DmarcAggregateRecordsAdded', 'DmarcReportRetentionApplied'],
  async apply(event, ctx) {
    const reports = ctx.collection(DMARC_REPORTS);
    const rows = ctx.collection(DMARC_REPORT_ROW_BLOCKS);
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
        // Blocks the slice shares with rows already stored (a slice not aligned on blocks) are merged.
        const slice = { ...d, records: chunkRecords(d) };
        const stored = await rows.find({
          _id: { $in: rowBlocksSpanned(d.offset, slice.records.length).map((b) => rowBlockId(d.report_key, b)) },
        });
        const existing = new Map<number, DmarcReportRowBlockDoc>(stored.map((b) => [b.block, b]));
        await rows.bulkWrite(
          placeRows(slice, existing).map((block) => ({
            replaceOne: { filter: { _id: block._id }, replacement: block, upsert: true },
          })),
        );
        return;
      }
    }
  },
});
