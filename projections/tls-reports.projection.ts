import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { ReportRetentionApplied, TlsReportReceived } from '../libs/dmarc-reports/domain/report.events';

/** tls_reports: one document per SMTP TLS report, with session totals and per-policy failure details. */
export const tlsReportsProjection: ProjectionDefinition = {
  name: 'tls_reports',
  version: 1,
  collections: ['tls_reports'],
  handles: ['TlsReportReceived', 'DmarcReportRetentionApplied'],
  async setup(ctx) {
    await ctx.collection('tls_reports').createIndex({ zone: 1, begin: -1 });
    await ctx.collection('tls_reports').createIndex({ account_id: 1, begin: -1 });
  },
  async apply(raw, ctx) {
    const event = raw as unknown as TlsReportReceived | ReportRetentionApplied;
    if (event.type === 'DmarcReportRetentionApplied') {
      await ctx.collection('tls_reports').deleteMany({ begin: { $lt: event.data.cutoff } });
      return;
    }
    const d = event.data;
    await ctx.collection('tls_reports').replaceOne({ _id: d.report_key }, { _id: d.report_key, id: d.report_key, ...d }, { upsert: true });
  },
};
