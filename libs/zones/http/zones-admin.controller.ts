import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { AdminOnly } from '../../auth/principal';
import { hostnameProblem } from '../../dns-server';
import { notFound, validationFailed } from '../../shared/errors';
import { normalizeZoneName } from '../application/zone.handlers';
import { ZoneOwnership } from '../application/zone-ownership';
import { ZoneOwnershipReport } from '../application/zone-ownership-report';
import { AllowOverlapDto } from './zone.dto';

/** Operator endpoints of zone ownership (contract §4); the CLI's `zones:*` commands call them. */
@AdminOnly()
@Controller('admin/zones')
export class ZonesAdminController {
  constructor(
    private readonly ownership: ZoneOwnership,
    private readonly report: ZoneOwnershipReport,
    private readonly accounts: AccountDirectory,
  ) {}

  /** Lets `account_id` hold `zone` although it overlaps another account's zone or a service name. */
  @Post(':zone/allow-overlap')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Allows account_id to hold the zone although it is equal to, under or above another account’s zone, a ' +
      'dynamic-DNS zone or a name-server host (contract §4); ' +
      'answers {zone, account_id, allowed_at}; 404 for an unknown account',
  })
  async allowOverlap(@Param('zone') raw: string, @Body() body: AllowOverlapDto) {
    const zone = normalizeZoneName(raw);
    const problem = hostnameProblem(zone);
    if (problem || !zone.includes('.'))
      throw validationFailed(`zone: ${problem ?? 'a zone name needs at least two labels'}`);
    if (!(await this.accounts.load(body.account_id)).state.exists) throw notFound('Account not found');
    const allowed = await this.ownership.allowOverlap(zone, body.account_id, {
      actor: 'operator',
      account_id: body.account_id,
    });
    return { zone: allowed.zone, account_id: allowed.account_id, allowed_at: allowed.at };
  }

  /** Existing data breaking the ownership rules, each conflicting pair once (also refreshes the gauge). */
  @Get('conflicts')
  @ApiOperation({
    summary:
      'Existing zones breaking the ownership rules (imported before they were enforced): {conflicts: [{zone, ' +
      'account_id, relation, with: {kind, name, account_id}}]}',
  })
  async conflicts() {
    return { conflicts: await this.report.list() };
  }
}
