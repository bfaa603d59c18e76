import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ZONE_COMMAND_HANDLERS } from './application/zone.handlers';
import { ZoneQueries } from './application/zone.queries';
import { ZoneQuota } from './application/zone-quota';
import { ZoneVerifier } from './application/zone-verifier';
import { ZonesController } from './http/zones.controller';

@Module({
  imports: [AccountsModule],
  controllers: [ZonesController],
  providers: [ZoneQueries, ZoneQuota, ZoneVerifier, ...ZONE_COMMAND_HANDLERS],
  exports: [ZoneQueries],
})
export class ZonesModule {}
