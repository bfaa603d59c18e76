import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Optional,
  Param,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import { ApiProduces, ApiResponse } from '@nestjs/swagger';
import { CommandBus } from '@nestjs/cqrs';
import { actorOf, ClientIp, CurrentPrincipal, Principal } from '../../auth/principal';
import { DeleteZone, ImportZone, UpsertZoneRecords, VerifyZone, ZoneCaller } from '../application/zone.commands';
import { recordsView, ZoneQueries, zoneView } from '../application/zone.queries';
import { ZONE_TIME_TRAVEL, ZoneTimeTravel } from '../application/zone-time-travel.port';
import { CreateZoneDto, UpsertRecordsDto } from './zone.dto';

const callerOf = (p: Principal, ip: string): ZoneCaller => ({
  accountId: p.accountId,
  actor: actorOf(p),
  sourceIp: ip,
});

/** Imported DNS zones (contract §4). */
@Controller('zones')
export class ZonesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: ZoneQueries,
    @Optional() @Inject(ZONE_TIME_TRAVEL) private readonly timeTravel?: ZoneTimeTravel,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateZoneDto, @ClientIp() ip: string) {
    const name: string = await this.commands.execute(new ImportZone(callerOf(p, ip), body.name, body.zone_file));
    return zoneView(await this.queries.get(p.accountId, name));
  }

  @Get()
  async list(@CurrentPrincipal() p: Principal) {
    return { zones: await this.queries.list(p.accountId) };
  }

  @Get(':zone')
  async get(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @Query('as_of') asOf?: string) {
    if (asOf !== undefined && this.timeTravel) return this.timeTravel.zoneAsOf(p.accountId, zone, asOf);
    const doc = await this.queries.get(p.accountId, zone);
    return { ...zoneView(doc), records: recordsView(doc) };
  }

  /** The zone as a BIND master file (contract §18); the import reads it back unchanged. */
  @Get(':zone/export')
  @Header('Content-Type', 'text/dns; charset=utf-8')
  @ApiProduces('text/dns')
  @ApiResponse({
    status: 200,
    description: 'The zone in BIND master-file format (RFC 1035 §5), without DNSSEC records',
    content: { 'text/dns': { schema: { type: 'string' } } },
  })
  async export(@CurrentPrincipal() p: Principal, @Param('zone') zone: string): Promise<string> {
    return this.queries.exportZone(p.accountId, zone);
  }

  @Post(':zone/verify')
  @HttpCode(200)
  async verify(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @ClientIp() ip: string) {
    await this.commands.execute(new VerifyZone(callerOf(p, ip), zone));
    return zoneView(await this.queries.get(p.accountId, zone));
  }

  @Delete(':zone')
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @ClientIp() ip: string): Promise<void> {
    await this.commands.execute(new DeleteZone(callerOf(p, ip), zone));
  }

  @Get(':zone/records')
  async records(@CurrentPrincipal() p: Principal, @Param('zone') zone: string) {
    return { records: recordsView(await this.queries.get(p.accountId, zone)) };
  }

  @Put(':zone/records')
  async upsert(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: UpsertRecordsDto,
    @ClientIp() ip: string,
  ) {
    await this.commands.execute(new UpsertZoneRecords(callerOf(p, ip), zone, body.records));
    return { records: recordsView(await this.queries.get(p.accountId, zone)) };
  }
}
