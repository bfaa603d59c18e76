import type { FailureReportReceived } from '../libs/dmarc-reports/domain/report.events';
import { type ArchivedReport, defineReportArchive } from './report-archive';

/** One failure report as received: subject and full mail-from sealed, never a message id. */
export type DmarcFailureReportDoc = ArchivedReport<FailureReportReceived>;

/**
 * dmarc_failure_reports: one document per failure report. Subject and full mail-from
 * stay sealed here; the read API opens them only for keys with the failure-report-subjects
 * flag. No message id is ever stored.
 */
const archive = defineReportArchive<FailureReportReceived>({
  name: 'dmarc_failure_reports',
  received: 'DmarcFailureReportReceived',
  dateField: 'received_at',
});

export const DMARC_FAILURE_REPORTS = archive.readModel;
export const dmarcFailureReportsProjection = archive.projection;
