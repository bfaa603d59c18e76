import { Global, Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module';
import { ZONE_TIME_TRAVEL } from '../zones/application/zone-time-travel.port';
import { ZonesModule } from '../zones/zones.module';
import { HISTORY_COMMAND_HANDLERS } from './application/history.handlers';
import { HistoryQueries } from './application/history.queries';
import { HistoryViews } from './application/history-views';
import { ZoneResolver } from './application/zone-resolver';
import { HistoryController } from './http/history.controller';

/**
 * History and time travel (contract §19): changes with diffs, state as of an instant,
 * resolve, restore. Global only to hand the zones controller its `as_of` port.
 */
@Global()
@Module({
  imports: [ZonesModule, DomainsModule],
  controllers: [HistoryController],
  providers: [
    HistoryQueries,
    HistoryViews,
    ZoneResolver,
    ...HISTORY_COMMAND_HANDLERS,
    { provide: ZONE_TIME_TRAVEL, useExisting: HistoryViews },
  ],
  exports: [HistoryQueries, ZONE_TIME_TRAVEL],
})
export class HistoryModule {}
