import { FailureReportReceived, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';

/** One failure report as received: subject and full mail-from sealed, never a message id. */
export type DmarcFailureReportDoc = FailureReportReceived['data'] & { _id: string; id: string };

export const DMARC_FAILURE_REPORTS = defineReadModel<DmarcFailureReportDoc>(
  'dmarc_failure_reports',
  'dmarc_failure_reports',
  [{ keys: { zone: 1, received_at: -1 } }, { keys: { account_id: 1, received_at: -1 } }],
);

/**
 * dmarc_failure_reports: one document per failure report. Subject and full mail-from
 * stay sealed here; the read API opens them only for keys with the failure-report-subjects
 * flag. No message id is ever stored.
 */
export const dmarcFailureReportsProjection = defineProjection<FailureReportReceived | ReportRetentionApplied>({
  name: 'dmarc_failure_reports',
  version: 1,
  readModels: [DMARC_FAILURE_REPORTS],
  handles: ['DmarcFailureReportReceived', 'DmarcReportRetentionApplied'],
  async apply(event, ctx) {
    const reports = ctx.collection(DMARC_FAILURE_REPORTS);
    switch (event.type) {
      case 'DmarcReportRetentionApplied':
        await reports.deleteMany({ received_at: { $lt: event.data.cutoff } });
        return;
      case 'DmarcFailureReportReceived': {
        const d = event.data;
        await reports.replaceOne(
          { _id: d.report_key },
          { _id: d.report_key, id: d.report_key, ...d },
          { upsert: true },
        );
        return;
      }
    }
  },
});
