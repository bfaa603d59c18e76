import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { FailureReportReceived, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';

/**
 * dmarc_failure_reports: one document per failure report. Subject and full mail-from
 * stay sealed here; the read API opens them only for keys with the failure-report-subjects
 * flag. No message id is ever stored.
 */
export const dmarcFailureReportsProjection: ProjectionDefinition = {
  name: 'dmarc_failure_reports',
  version: 1,
  collections: ['dmarc_failure_reports'],
  handles: ['DmarcFailureReportReceived', 'DmarcReportRetentionApplied'],
  async setup(ctx) {
    await ctx.collection('dmarc_failure_reports').createIndex({ zone: 1, received_at: -1 });
    await ctx.collection('dmarc_failure_reports').createIndex({ account_id: 1, received_at: -1 });
  },
  async apply(raw, ctx) {
    const event = raw as unknown as FailureReportReceived | ReportRetentionApplied;
    if (event.type === 'DmarcReportRetentionApplied') {
      await ctx.collection('dmarc_failure_reports').deleteMany({ received_at: { $lt: event.data.cutoff } });
      return;
    }
    const d = event.data;
    await ctx.collection('dmarc_failure_reports').replaceOne({ _id: d.report_key }, { _id: d.report_key, id: d.report_key, ...d }, { upsert: true });
  },
};
