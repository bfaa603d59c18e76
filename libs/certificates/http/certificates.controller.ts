import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { actorOf, AdminOnly, ClientIp, CurrentPrincipal, Principal } from '../../auth/principal';
import { CLOCK, Clock } from '../../shared/clock';
import { validationFailed } from '../../shared/errors';
import {
  CertificateCaller,
  CreateCertificate,
  DeleteCertificate,
  RenewCertificate,
  SetCertificateAutoRenew,
} from '../application/certificate.commands';
import { CertificateQueries } from '../application/certificate.queries';
import { CertificateRenewalJob } from '../application/renewal.job';
import { requirePaid } from '../domain/certificate-rules';
import { AutoRenewDto, CreateCertificateDto, jobBody } from './certificate.dto';

const callerOf = (p: Principal, ip: string): CertificateCaller => ({
  accountId: p.accountId,
  actor: actorOf(p),
  sourceIp: ip,
});

/** TLS certificates (seed "Certificates", contract §10). Every route needs a paid plan. */
@Controller('certificates')
export class CertificatesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: CertificateQueries,
  ) {}

  /** The plan gate comes before any id is looked at. */
  private async paid(p: Principal) {
    const plan = await this.queries.planOf(p.accountId);
    requirePaid(plan);
    return plan;
  }

  @Post()
  @HttpCode(202)
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateCertificateDto, @ClientIp() ip: string) {
    const id: string = await this.commands.execute(
      new CreateCertificate(callerOf(p, ip), {
        zone: body.zone,
        domain: body.domain,
        sans: body.sans ?? [],
        wildcard: body.wildcard ?? false,
        autoRenew: body.auto_renew ?? false,
      }),
    );
    return this.queries.get(p.accountId, id);
  }

  @Get()
  async list(@CurrentPrincipal() p: Principal) {
    return this.queries.list(p.accountId, await this.paid(p));
  }

  @Get(':id')
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    await this.paid(p);
    return this.queries.get(p.accountId, id);
  }

  @Get(':id/logs')
  async logs(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    await this.paid(p);
    return this.queries.logs(p.accountId, id);
  }

  @Get(':id/download')
  async download(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    await this.paid(p);
    return this.queries.download(p.accountId, id);
  }

  @Post(':id/renew')
  @HttpCode(202)
  async renew(@CurrentPrincipal() p: Principal, @Param('id') id: string, @ClientIp() ip: string) {
    await this.paid(p);
    await this.commands.execute(new RenewCertificate(callerOf(p, ip), id, 'manual'));
    return this.queries.get(p.accountId, id);
  }

  @Put(':id/auto-renew')
  async autoRenew(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: AutoRenewDto,
    @ClientIp() ip: string,
  ) {
    await this.paid(p);
    await this.commands.execute(new SetCertificateAutoRenew(callerOf(p, ip), id, body.auto_renew));
    return this.queries.get(p.accountId, id);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Query('revoke') revoke: string | undefined,
    @ClientIp() ip: string,
  ): Promise<void> {
    if (revoke !== undefined && revoke !== 'true' && revoke !== 'false')
      throw validationFailed('revoke must be true or false');
    await this.paid(p);
    await this.commands.execute(new DeleteCertificate(callerOf(p, ip), id, revoke === 'true'));
  }
}

/** `POST /admin/jobs/certificate-renewals` (contract §13): the daily job, on demand, with an optional `now`. */
@AdminOnly()
@Controller('admin/jobs')
export class CertificateJobsController {
  constructor(
    private readonly job: CertificateRenewalJob,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The body is optional as a whole (an operator's bare POST runs the job for now), so it is checked here. */
  @Post('certificate-renewals')
  @HttpCode(200)
  run(@Body() body: unknown) {
    const { now } = jobBody(body);
    return this.job.run(now ? new Date(now) : this.clock.now());
  }
}
