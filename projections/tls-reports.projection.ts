import type { TlsReportReceived } from '../libs/dmarc-reports/domain/report.events';
import { type ArchivedReport, defineReportArchive } from './report-archive';

/** One SMTP TLS report as received, with its session totals and per-policy failure details. */
export type TlsReportDoc = ArchivedReport<TlsReportReceived>;

/** tls_reports: one document per SMTP TLS report, with session totals and per-policy failure details. */
const archive = defineReportArchive<TlsReportReceived>({
  name: 'tls_reports',
  received: 'TlsReportReceived',
  dateField: 'begin',
});

export const TLS_REPORTS = archive.readModel;
export const tlsReportsProjection = archive.projection;
