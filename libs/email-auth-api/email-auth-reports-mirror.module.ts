import { Module } from '@nestjs/common';
import { EmailAuthApiModule } from './email-auth-api.module';
import { EmailAuthEventsMirrorController } from './http/email-auth-events-mirror.controller';
import { EmailAuthReportsMirrorController } from './http/email-auth-reports-mirror.controller';

/**
 * The dashboard mirrors of the report endpoints (GET /email-auth/domains/{zone}/dmarc/…,
 * /tls-rpt/summary) and of the event log (GET /email-auth/events). A module of their own so the email-auth API's OpenAPI document, built
 * from EmailAuthApiModule, holds only /api/v1/email-auth paths.
 */
@Module({
  imports: [EmailAuthApiModule],
  controllers: [EmailAuthReportsMirrorController, EmailAuthEventsMirrorController],
})
export class EmailAuthReportsMirrorModule {}
