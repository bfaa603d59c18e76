import { Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ZonesModule } from '../zones/zones.module';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { LOGGER, Logger } from '../shared/logger';
import { SetDnssecEnabled } from './application/dnssec.commands';
import { DNSSEC_COMMAND_HANDLERS, DnssecWriter } from './application/dnssec.handlers';
import { ddnsTarget, DnssecQueries } from './application/dnssec.queries';
import { ParentDsLookup } from './application/parent-ds';
import { DnssecProcess } from './application/dnssec.process';
import { DnssecAdminController, DnssecController } from './http/dnssec.controller';

/**
 * With DNSSEC_DDNS_ZONES=true the dynamic-DNS zones are signed: on start, a zone whose
 * stream never turned signing on gets its first key (the decider makes a repeat a no-op, so
 * every worker may try). An operator's later PUT /admin/zones/{zone}/dnssec decides after that.
 */
@Injectable()
export class DnssecDdnsZones implements OnApplicationBootstrap {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: DnssecQueries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.dnssecDdnsZones || !this.config.roles.includes('worker')) return;
    for (const zone of this.config.ddnsZones) {
      const target = ddnsTarget(zone);
      if (await this.queries.state(target)) continue;
      try {
        await this.commands.execute(new SetDnssecEnabled(target, true, undefined, { actor: 'system:dnssec' }));
      } catch (e) {
        this.logger.warn('dnssec: could not sign a dynamic-DNS zone', { zone, error: (e as Error).message });
      }
    }
  }
}

@Module({
  imports: [ZonesModule],
  controllers: [DnssecController, DnssecAdminController],
  providers: [DnssecWriter, ...DNSSEC_COMMAND_HANDLERS, DnssecQueries, ParentDsLookup, DnssecDdnsZones, DnssecProcess],
})
export class DnssecModule {}
