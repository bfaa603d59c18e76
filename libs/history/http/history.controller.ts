import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiQuery } from '@nestjs/swagger';
import { actorOf, ClientIp, CurrentPrincipal, Principal } from '../../auth/principal';
import { DomainQueries } from '../../domains/application/domain.queries';
import { parseLimit, parseOptionalString } from '../../shared/http/paging';
import { validationFailed } from '../../shared/errors';
import { recordsView, ZoneQueries } from '../../zones/application/zone.queries';
import { HistoryCaller, RestoreHost, RestoreZone } from '../application/history.handlers';
import { HistoryQueries, parseAsOf } from '../application/history.queries';
import { ZoneResolver } from '../application/zone-resolver';
import { RestoreDto } from './history.dto';

const callerOf = (p: Principal, ip: string): HistoryCaller => ({
  accountId: p.accountId,
  actor: actorOf(p),
  sourceIp: ip,
});

function required(raw: unknown, name: string): string {
  const value = parseOptionalString(raw, name, 300);
  if (value === undefined || value === '') throw validationFailed(`${name} is required`);
  return value;
}

/** History, time travel and restore of zones and hosts (contract §19). `GET /zones/{zone}?as_of=` is the zones controller's, through its port. */
@Controller()
export class HistoryController {
  constructor(
    private readonly commands: CommandBus,
    private readonly history: HistoryQueries,
    private readonly resolver: ZoneResolver,
    private readonly zones: ZoneQueries,
    private readonly domains: DomainQueries,
  ) {}

  @Get('zones/:zone/history')
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1–100, default 50' })
  async zoneHistory(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Query() query: Record<string, unknown>,
  ) {
    const cursor = parseOptionalString(query.cursor, 'cursor');
    const limit = parseLimit(query.limit, 50);
    await this.history.caughtUp();
    return this.history.page(await this.history.zoneSubject(p.accountId, zone, null), cursor, limit);
  }

  @Get('zones/:zone/resolve')
  @ApiQuery({ name: 'name', required: true, type: String, description: 'a name at or under the zone' })
  @ApiQuery({ name: 'type', required: true, type: String, example: 'A' })
  @ApiQuery({ name: 'as_of', required: false, type: String, description: 'ISO 8601 instant (default: now)' })
  async resolve(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Query() query: Record<string, unknown>,
  ) {
    const name = required(query.name, 'name');
    const type = required(query.type, 'type');
    const now = this.history.now();
    const at = query.as_of === undefined ? now.getTime() : parseAsOf(query.as_of, now);
    await this.history.caughtUp();
    const state = await this.history.zoneAt(await this.history.zoneSubject(p.accountId, zone, at), at);
    return this.resolver.resolve(p.accountId, state, name, type, at);
  }

  @Post('zones/:zone/restore')
  @HttpCode(200)
  async restoreZone(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: RestoreDto,
    @ClientIp() ip: string,
  ) {
    const at = parseAsOf(body.as_of, this.history.now());
    await this.commands.execute(new RestoreZone(callerOf(p, ip), zone, at));
    const doc = await this.zones.get(p.accountId, zone);
    return { name: doc.name, records: recordsView(doc) };
  }

  @Get('api/domains/fqdn/:fqdn/history')
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1–100, default 50' })
  async hostHistory(
    @CurrentPrincipal() p: Principal,
    @Param('fqdn') fqdn: string,
    @Query() query: Record<string, unknown>,
  ) {
    const cursor = parseOptionalString(query.cursor, 'cursor');
    const limit = parseLimit(query.limit, 50);
    await this.history.caughtUp();
    return this.history.page(await this.history.hostSubject(p.accountId, fqdn, null), cursor, limit);
  }

  @Get('api-keys/:id/history')
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1–100, default 50' })
  keyHistory(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.settingsPage('api_key', p, id, query);
  }

  @Get('certificates/:id/history')
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1–100, default 50' })
  certificateHistory(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.settingsPage('certificate', p, id, query);
  }

  @Get('email-auth/domains/:zone/history')
  @ApiQuery({ name: 'cursor', required: false, type: String })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1–100, default 50' })
  emailAuthHistory(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.settingsPage('email_auth', p, zone, query);
  }

  /** History only for these: no as_of and no restore (contract §19: restores cover records and host addresses). */
  private async settingsPage(
    kind: 'api_key' | 'certificate' | 'email_auth',
    p: Principal,
    id: string,
    query: Record<string, unknown>,
  ) {
    const cursor = parseOptionalString(query.cursor, 'cursor');
    const limit = parseLimit(query.limit, 50);
    await this.history.caughtUp();
    return this.history.page(await this.history.settingsSubject(kind, p.accountId, id), cursor, limit);
  }

  @Post('api/domains/fqdn/:fqdn/restore')
  @HttpCode(200)
  async restoreHost(
    @CurrentPrincipal() p: Principal,
    @Param('fqdn') fqdn: string,
    @Body() body: RestoreDto,
    @ClientIp() ip: string,
  ) {
    const at = parseAsOf(body.as_of, this.history.now());
    await this.commands.execute(new RestoreHost(callerOf(p, ip), fqdn, at));
    return this.domains.get(p.accountId, fqdn);
  }
}
