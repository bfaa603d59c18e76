import { Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { ZonesModule } from '../zones/zones.module';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { LOGGER, Logger } from '../shared/logger';
import { ddnsTarget, DnssecCommands } from './application/dnssec.commands';
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
    private readonly commands: DnssecCommands,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.dnssecDdnsZones || !this.config.roles.includes('worker')) return;
    for (const zone of this.config.ddnsZones) {
      const target = ddnsTarget(zone);
      if (await this.commands.state(target)) continue;
      try {
        await this.commands.setEnabled(target, true, undefined, { actor: 'system:dnssec' });
      } catch (e) {
        this.logger.warn('dnssec: could not sign a dynamic-DNS zone', { zone, error: (e as Error).message });
      }
    }
  }
}

@Module({
  imports: [ZonesModule],
  controllers: [DnssecController, DnssecAdminController],
  providers: [DnssecCommands, ParentDsLookup, DnssecDdnsZones, DnssecProcess],
})
export class DnssecModule {}
