import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { MONITOR_COMMAND_HANDLERS } from './application/monitor.handlers';
import { UptimeAccess } from './application/uptime-access';
import { UptimeQueries } from './application/uptime.queries';
import { UptimeChecks } from './application/uptime-checks';
import { UptimeWorker } from './application/uptime.worker';
import { UptimeController } from './http/uptime.controller';

@Module({
  imports: [AccountsModule],
  controllers: [UptimeController],
  providers: [UptimeAccess, UptimeQueries, UptimeChecks, UptimeWorker, ...MONITOR_COMMAND_HANDLERS],
  exports: [UptimeWorker],
})
export class UptimeModule {}
