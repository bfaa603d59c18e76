import { Module } from '@nestjs/common';
import { ZONE_COMMAND_HANDLERS } from './application/zone.handlers';
import { ZoneQueries } from './application/zone.queries';
import { ZoneVerifier } from './application/zone-verifier';
import { ZonesController } from './http/zones.controller';

@Module({
  controllers: [ZonesController],
  providers: [ZoneQueries, ZoneVerifier, ...ZONE_COMMAND_HANDLERS],
  exports: [ZoneQueries],
})
export class ZonesModule {}
