import { Module } from '@nestjs/common';
import { LiveRecords } from '../email-auth/application/live-records';
import { ALERT_COMMAND_HANDLERS } from './application/alert.handlers';
import { DailyReportAlertsProcess } from './application/daily-report-alerts.process';
import { RecordAlertJob } from './application/record-alert.job';
import { EmailAuthAlertsAdminController } from './http/email-auth-alerts.controller';

/**
 * The alert rules of contract §9 (events `alert.raised` / `alert.resolved` in the email-auth
 * event log): a missing live record (an hourly check through VERIFY_RESOLVER) and the
 * daily DMARC pass-rate and TLS failure rules (a process manager over the report events).
 * Recorded whatever the account's alert settings; delivery is the integrations' business.
 */
@Module({
  controllers: [EmailAuthAlertsAdminController],
  providers: [...ALERT_COMMAND_HANDLERS, DailyReportAlertsProcess, RecordAlertJob, LiveRecords],
})
export class EmailAuthAlertsModule {}
