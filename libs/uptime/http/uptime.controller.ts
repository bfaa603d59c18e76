import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { validationFailed } from '../../shared/errors';
import { ApiOperation } from '@nestjs/swagger';
import { CHECK_WINDOWS, CheckWindow } from '../domain/checks';
import { HISTORY_WINDOWS, HistoryWindow } from '../domain/history';
import { UptimeChecks } from '../application/uptime-checks';
import { CommandBus } from '@nestjs/cqrs';
import { actorOf, ClientIp, CurrentPrincipal, Principal } from '../../auth/principal';
import { SetMonitoring } from '../application/monitor.commands';
import { MonitoringSet } from '../application/monitor.handlers';
import { parseDomainId, UptimeAccess } from '../application/uptime-access';
import { UptimeQueries } from '../application/uptime.queries';
import { SetMonitorDto } from './uptime.dto';

/** Uptime monitoring (seed "Uptime", contract §6). Every route needs Plus or higher. */
@Controller('uptime')
export class UptimeController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: UptimeQueries,
    private readonly access: UptimeAccess,
    private readonly checksReader: UptimeChecks,
  ) {}

  @Post('domain/:id/monitor')
  @HttpCode(200)
  async monitor(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: SetMonitorDto,
    @ClientIp() ip: string,
  ): Promise<MonitoringSet> {
    // The plan gate comes before any id is looked at, on every route.
    await this.access.planOf(p.accountId);
    return this.commands.execute(new SetMonitoring(p.accountId, parseDomainId(id), body.enabled, actorOf(p), ip));
  }

  @Get('dashboard')
  async dashboard(@CurrentPrincipal() p: Principal) {
    await this.access.planOf(p.accountId);
    return this.queries.dashboard(p.accountId);
  }

  @Get('domain/:id')
  async domain(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    await this.access.planOf(p.accountId);
    return this.queries.domain(p.accountId, parseDomainId(id));
  }

  @Get('domain/:id/history')
  async history(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query('window') window: unknown) {
    await this.access.planOf(p.accountId);
    const w = window ?? '24h';
    if (typeof w !== 'string' || !HISTORY_WINDOWS.includes(w as HistoryWindow)) {
      throw validationFailed('window must be one of 24h, 7d, 30d');
    }
    return this.queries.history(p.accountId, parseDomainId(id), w as HistoryWindow);
  }

  @Get('domain/:id/checks')
  @ApiOperation({
    summary:
      'Uptime of one host from its raw checks: a series per minute (1h), 5 minutes (6h) or 15 minutes (24h), and its incidents (down periods)',
  })
  async checks(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query('window') window: unknown) {
    await this.access.planOf(p.accountId);
    const w = window ?? '1h';
    if (typeof w !== 'string' || !CHECK_WINDOWS.includes(w as CheckWindow))
      throw validationFailed('window must be one of 1h, 6h, 24h');
    return this.checksReader.checks(p.accountId, parseDomainId(id), w as CheckWindow);
  }

  @Get('domains')
  async domains(@CurrentPrincipal() p: Principal) {
    await this.access.planOf(p.accountId);
    return this.queries.domains(p.accountId);
  }

  @Get('limits')
  async limits(@CurrentPrincipal() p: Principal) {
    return this.queries.limits(p.accountId, await this.access.planOf(p.accountId));
  }

  @Get('status/realtime')
  async realtime(@CurrentPrincipal() p: Principal) {
    await this.access.planOf(p.accountId);
    return this.queries.realtime(p.accountId);
  }
}
