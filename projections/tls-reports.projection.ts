import { ReportRetentionApplied, TlsReportReceived } from '../libs/dmarc-reports/domain/report.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';

/** One SMTP TLS report as received, with its session totals and per-policy failure details. */
export type TlsReportDoc = TlsReportReceived['data'] & { _id: string; id: string };

export const TLS_REPORTS = defineReadModel<TlsReportDoc>('tls_reports', 'tls_reports', [
  { keys: { zone: 1, begin: -1 } },
  { keys: { account_id: 1, begin: -1 } },
]);

/** tls_reports: one document per SMTP TLS report, with session totals and per-policy failure details. */
export const tlsReportsProjection = defineProjection<TlsReportReceived | ReportRetentionApplied>({
  name: 'tls_reports',
  version: 1,
  readModels: [TLS_REPORTS],
  handles: ['TlsReportReceived', 'DmarcReportRetentionApplied'],
  async apply(event, ctx) {
    const reports = ctx.collection(TLS_REPORTS);
    switch (event.type) {
      case 'DmarcReportRetentionApplied':
        await reports.deleteMany({ begin: { $lt: event.data.cutoff } });
        return;
      case 'TlsReportReceived': {
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
