import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { AdminOnly } from '../../auth/principal';
import { jobBody } from '../../certificates/http/certificate.dto';
import { CLOCK, Clock } from '../../shared/clock';
import { DailyReportAlertsProcess } from '../application/daily-report-alerts.process';
import { RecordAlertJob } from '../application/record-alert.job';

/**
 * `POST /admin/jobs/email-auth-alerts`: operators run the alert checks now (optionally for
 * an explicit `now`): the live-record check of every enrolled domain, and the daily
 * report rules for every day whose evaluation is due.
 */
@AdminOnly()
@Controller('admin/jobs')
export class EmailAuthAlertsAdminController {
  constructor(
    private readonly records: RecordAlertJob,
    private readonly daily: DailyReportAlertsProcess,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post('email-auth-alerts')
  @HttpCode(200)
  async run(@Body() body: unknown) {
    const { now } = jobBody(body);
    const days_evaluated = await this.daily.runDue();
    const records = await this.records.run(now ? new Date(now) : this.clock.now());
    return { ...records, days_evaluated };
  }
}
