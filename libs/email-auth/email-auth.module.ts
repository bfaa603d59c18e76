import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ZonesModule } from '../zones/zones.module';
import { DmarcNightlyJob } from './application/dmarc-nightly.job';
import { DmarcNightlyProcess } from './application/dmarc-nightly.process';
import { EMAIL_AUTH_COMMAND_HANDLERS, EmailAuthSettingsWriter } from './application/email-auth.handlers';
import { EmailAuthQueries } from './application/email-auth.queries';
import { Enrolment } from './application/enrolment';
import { MtaStsPolicies } from './application/mta-sts-policies';
import { ServedSpfRecords } from './application/served-spf-records';
import {
  DmarcNightlyAdminController,
  DmarcWizardController,
  EmailAuthSettingsController,
  MtaStsPolicyController,
} from './http/email-auth.controller';

/**
 * Email authentication I: per-zone settings and their DNS records, the MTA-STS policy
 * file and the DMARC wizard with its nightly job. The nightly job reads aggregate report
 * totals through DMARC_AGGREGATE_STATS, bound by the report-ingestion context (a global
 * provider); without it the job refuses to run and says so.
 */
@Module({
  imports: [AccountsModule, ZonesModule],
  controllers: [
    EmailAuthSettingsController,
    DmarcWizardController,
    MtaStsPolicyController,
    DmarcNightlyAdminController,
  ],
  providers: [
    EmailAuthSettingsWriter,
    ...EMAIL_AUTH_COMMAND_HANDLERS,
    EmailAuthQueries,
    Enrolment,
    ServedSpfRecords,
    MtaStsPolicies,
    DmarcNightlyJob,
    DmarcNightlyProcess,
  ],
  exports: [DmarcNightlyJob, EmailAuthQueries],
})
export class EmailAuthModule {}
