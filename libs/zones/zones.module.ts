import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ZONE_COMMAND_HANDLERS } from './application/zone.handlers';
import { ZoneOwnership } from './application/zone-ownership';
import { ZoneOwnershipReport } from './application/zone-ownership-report';
import { ZoneQueries } from './application/zone.queries';
import { ZoneQuota } from './application/zone-quota';
import { ZoneHosts } from './application/zone-hosts';
import { ZoneVerifier } from './application/zone-verifier';
import { ZonesAdminController } from './http/zones-admin.controller';
import { ZonesController } from './http/zones.controller';

@Module({
  imports: [AccountsModule],
  controllers: [ZonesController, ZonesAdminController],
  providers: [
    ZoneQueries,
    ZoneQuota,
    ZoneHosts,
    ZoneVerifier,
    ZoneOwnership,
    ZoneOwnershipReport,
    ...ZONE_COMMAND_HANDLERS,
  ],
  exports: [ZoneQueries, ZoneQuota],
})
export class ZonesModule {}
