import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { actorOf, ClientIp, CurrentPrincipal, CurrentRequester, Principal, Requester } from '../../auth/principal';
import { Caller, CreateDomain, DeleteDomain, EditDomain } from '../application/domain.commands';
import { DomainQueries } from '../application/domain.queries';
import { ExplicitOrigin } from '../../shared/http/request-context';
import { CreateDomainDto, UpdateDomainDto } from './domain.dto';

const callerOf = (p: Principal, ip: string, correlationId?: string): Caller => ({
  accountId: p.accountId,
  actor: actorOf(p),
  sourceIp: ip,
  correlationId,
});

/** Dynamic-DNS hosts (contract §4). Writes go through commands; reads come from the domains read model. */
@Controller()
export class DomainsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: DomainQueries,
  ) {}

  @Post('api/domains')
  @HttpCode(201)
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateDomainDto, @ClientIp() ip: string) {
    await this.commands.execute(new CreateDomain(callerOf(p, ip), body.fqdn, body.record_type, body.record_ip));
    return this.queries.get(p.accountId, body.fqdn);
  }

  @Get('api/domains/fqdn/:fqdn')
  get(@CurrentPrincipal() p: Principal, @Param('fqdn') fqdn: string) {
    return this.queries.get(p.accountId, fqdn);
  }

  // A frequent write (scripts editing a host's address): its command states the request's origin, and its
  // caller comes as one parameter (decision 0133).
  @Put('api/domains/fqdn/:fqdn')
  @ExplicitOrigin()
  async update(@CurrentRequester() r: Requester, @Param('fqdn') fqdn: string, @Body() body: UpdateDomainDto) {
    const edit = { recordIp: body.record_ip, ipv4: body.ipv4, ipv6: body.ipv6, ttl: body.ttl };
    await this.commands.execute(new EditDomain(callerOf(r.principal, r.ip, r.correlationId), fqdn, edit));
    return this.queries.get(r.principal.accountId, fqdn);
  }

  @Delete('api/domains/fqdn/:fqdn')
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('fqdn') fqdn: string, @ClientIp() ip: string): Promise<void> {
    await this.commands.execute(new DeleteDomain(callerOf(p, ip), fqdn));
  }

  @Get('domains')
  list(@CurrentPrincipal() p: Principal) {
    return this.queries.list(p.accountId);
  }
}
