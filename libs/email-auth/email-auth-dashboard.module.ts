import { Module } from '@nestjs/common';
import { LiveRecords } from './application/live-records';
import { EmailAuthModule } from './email-auth.module';
import { EmailAuthDashboardController } from './http/email-auth-dashboard.controller';

/** Session reads the dashboard's email-authentication screens need (docs/email-auth-dashboard-reads.md). */
@Module({
  imports: [EmailAuthModule],
  controllers: [EmailAuthDashboardController],
  providers: [LiveRecords],
})
export class EmailAuthDashboardModule {}
