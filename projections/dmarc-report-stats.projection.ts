import {
  AggregateRecordsAdded,
  AggregateReportReceived,
  chunkRecords,
  ReportRetentionApplied,
} from '../libs/dmarc-reports/domain/report.events';
import { ChunkStats, chunkStats } from '../libs/email-auth-api/domain/report-stats';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';

/** The totals of one records chunk of an aggregate report, with the report's zone, account and day. */
export type DmarcReportStatsDoc = ChunkStats & {
  /** Report key and chunk offset. */
  _id: string;
  report_key: string;
  zone: string;
  /** Null only if the chunk came without its header (never, as they are appended together). */
  account_id: number | null;
  begin: string;
  /** The report's period start, UTC day (YYYY-MM-DD). */
  day: string;
};

/** A report header's owner and period, kept so its chunks carry the account. */
export interface DmarcReportStatsOwnerDoc {
  _id: string;
  account_id: number;
  begin: string;
}

export const DMARC_REPORT_STATS = defineReadModel<DmarcReportStatsDoc>('dmarc_report_stats', 'dmarc_report_stats', [
  { keys: { zone: 1, day: -1 } },
  { keys: { begin: 1 } },
]);
export const DMARC_REPORT_STATS_OWNERS = defineReadModel<DmarcReportStatsOwnerDoc>(
  'dmarc_report_stats',
  'dmarc_report_stats_owners',
);

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
export const dmarcReportStatsProjection = defineProjection<
  AggregateReportReceived | AggregateRecordsAdded | ReportRetentionApplied
>({
  name: 'dmarc_report_stats',
  version: 1,
  readModels: [DMARC_REPORT_STATS, DMARC_REPORT_STATS_OWNERS],
  handles: ['DmarcAggregateReportReceived', 'DmarcAggregateRecordsAdded', 'DmarcReportRetentionApplied'],
  async apply(event, ctx) {
    const stats = ctx.collection(DMARC_REPORT_STATS);
    const owners = ctx.collection(DMARC_REPORT_STATS_OWNERS);
    switch (event.type) {
      case 'DmarcReportRetentionApplied':
        await stats.deleteMany({ begin: { $lt: event.data.cutoff } });
        await owners.deleteMany({ begin: { $lt: event.data.cutoff } });
        return;
      case 'DmarcAggregateReportReceived': {
        const d = event.data;
        await owners.replaceOne(
          { _id: d.report_key },
          { _id: d.report_key, account_id: d.account_id, begin: d.begin },
          { upsert: true },
        );
        return;
      }
      case 'DmarcAggregateRecordsAdded': {
        const d = event.data;
        const owner = await owners.findOne({ _id: d.report_key });
        const _id = `${d.report_key}:${d.offset}`;
        await stats.replaceOne(
          { _id },
          {
            _id,
            report_key: d.report_key,
            zone: d.zone,
            account_id: owner?.account_id ?? null,
            begin: d.begin,
            day: d.begin.slice(0, 10),
            ...chunkStats(chunkRecords(d)),
          },
          { upsert: true },
        );
        return;
      }
    }
  },
});
