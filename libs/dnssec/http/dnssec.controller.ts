import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { actorOf, AdminOnly, ClientIp, CurrentPrincipal, Principal } from '../../auth/principal';
import { EventMetadata } from '../../eventstore/event-store.port';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { notFound } from '../../shared/errors';
import { ZoneQueries } from '../../zones/application/zone.queries';
import { DnssecTarget, SetDnssecEnabled, StartDnssecRollover } from '../application/dnssec.commands';
import { ddnsTarget, DnssecQueries, dnssecView } from '../application/dnssec.queries';
import { SetDnssecDto } from './dnssec.dto';

const zoneName = (raw: string) => raw.trim().toLowerCase().replace(/\.$/, '');

/** DNSSEC of an account's imported zones (contract §17). */
@Controller('zones')
export class DnssecController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: DnssecQueries,
    private readonly zones: ZoneQueries,
  ) {}

  private async target(p: Principal, zone: string): Promise<DnssecTarget> {
    const doc = await this.zones.get(p.accountId, zoneName(zone));
    return { zone: doc.name, zoneId: doc.id, accountId: p.accountId };
  }

  private async view(target: DnssecTarget) {
    return dnssecView(target.zone, await this.queries.state(target));
  }

  @Get(':zone/dnssec')
  async get(@CurrentPrincipal() p: Principal, @Param('zone') zone: string) {
    return this.view(await this.target(p, zone));
  }

  @Put(':zone/dnssec')
  async set(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: SetDnssecDto,
    @ClientIp() ip: string,
  ) {
    const target = await this.target(p, zone);
    await this.commands.execute(new SetDnssecEnabled(target, body.enabled, body.algorithm, metadataOf(p, ip)));
    return this.view(target);
  }

  @Post(':zone/dnssec/rollover')
  @HttpCode(202)
  async rollover(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @ClientIp() ip: string) {
    const target = await this.target(p, zone);
    await this.commands.execute(new StartDnssecRollover(target, metadataOf(p, ip)));
    return this.view(target);
  }
}

const metadataOf = (p: Principal, ip: string): EventMetadata => ({
  actor: actorOf(p),
  account_id: p.accountId,
  source_ip: ip,
});

/** The operator's view and switch for the dynamic-DNS zones (DDNS_ZONES). */
@AdminOnly()
@Controller('admin/zones')
export class DnssecAdminController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: DnssecQueries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private target(zone: string): DnssecTarget {
    const name = zoneName(zone);
    if (!this.config.ddnsZones.includes(name)) throw notFound('Not a dynamic-DNS zone of the service');
    return ddnsTarget(name);
  }

  @Get(':zone/dnssec')
  async get(@Param('zone') zone: string) {
    const target = this.target(zone);
    return dnssecView(target.zone, await this.queries.state(target));
  }

  @Put(':zone/dnssec')
  async set(@Param('zone') zone: string, @Body() body: SetDnssecDto, @ClientIp() ip: string) {
    const target = this.target(zone);
    await this.commands.execute(
      new SetDnssecEnabled(target, body.enabled, body.algorithm, { actor: 'admin', source_ip: ip }),
    );
    return dnssecView(target.zone, await this.queries.state(target));
  }

  @Post(':zone/dnssec/rollover')
  @HttpCode(202)
  async rollover(@Param('zone') zone: string, @ClientIp() ip: string) {
    const target = this.target(zone);
    await this.commands.execute(new StartDnssecRollover(target, { actor: 'admin', source_ip: ip }));
    return dnssecView(target.zone, await this.queries.state(target));
  }
}
