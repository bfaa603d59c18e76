import { Body, Controller, Delete, Get, Header, Headers, HttpCode, Param, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiResponse } from '@nestjs/swagger';
import { actorOf, AdminOnly, ClientIp, CurrentPrincipal, Principal, Public } from '../../auth/principal';
import { notFound, validationFailed } from '../../shared/errors';
import { DmarcNightlyJob } from '../application/dmarc-nightly.job';
import {
  ChangeEmailAuth,
  ConfigureSpf,
  EmailAuthCaller,
  GenerateDkimKey,
  RemoveDkimKey,
} from '../application/email-auth.commands';
import { EmailAuthQueries, progressionView } from '../application/email-auth.queries';
import { EmailAuthState } from '../domain/email-auth.decider';
import { MtaStsPolicies } from '../application/mta-sts-policies';
import { AdvanceDto, BimiDto, DkimDto, DmarcDto, MtaStsDto, NightlyJobDto, SpfDto, TlsRptDto } from './email-auth.dto';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const callerOf = (p: Principal, ip: string): EmailAuthCaller => ({
  accountId: p.accountId,
  actor: actorOf(p),
  sourceIp: ip,
});

/** Email-authentication settings of a zone (contract §7); session or account-key authentication. */
@Controller('email-auth/domains')
export class EmailAuthSettingsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: EmailAuthQueries,
  ) {}

  @Get(':zone')
  async get(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @ClientIp() ip: string) {
    const state = await this.queries.state(callerOf(p, ip), zone);
    return this.queries.view(state.zone, state);
  }

  @Put(':zone/dmarc')
  async dmarc(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: DmarcDto,
    @ClientIp() ip: string,
  ) {
    const state: EmailAuthState = await this.commands.execute(
      new ChangeEmailAuth(callerOf(p, ip), zone, { type: 'ConfigureDmarc', dmarc: body }),
    );
    return this.queries.view(state.zone, state);
  }

  @Put(':zone/spf')
  async spf(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: SpfDto,
    @ClientIp() ip: string,
  ) {
    const state: EmailAuthState = await this.commands.execute(new ConfigureSpf(callerOf(p, ip), zone, body));
    return this.queries.view(state.zone, state);
  }

  @Put(':zone/dkim/:selector')
  @Header('Cache-Control', 'no-store')
  async dkim(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Param('selector') selector: string,
    @Body() body: DkimDto,
    @ClientIp() ip: string,
  ) {
    const caller = callerOf(p, ip);
    if ((body.generate === true) === (body.public_key !== undefined))
      throw validationFailed('give either public_key or "generate": true');
    if (body.generate === true) {
      const { state, privateKey }: { state: EmailAuthState; privateKey: string } = await this.commands.execute(
        new GenerateDkimKey(caller, zone, selector),
      );
      const key = state.dkim.find((k) => k.selector === selector.toLowerCase())!;
      // The only time the private key leaves the service: it is not stored anywhere.
      return {
        ...(await this.queries.view(state.zone, state)),
        generated_key: {
          selector: key.selector,
          private_key: privateKey,
          public_key: key.public_key,
          key_bits: key.key_bits,
        },
      };
    }
    const state: EmailAuthState = await this.commands.execute(
      new ChangeEmailAuth(caller, zone, {
        type: 'SetDkimKey',
        selector,
        publicKey: body.public_key!,
        generated: false,
      }),
    );
    return this.queries.view(state.zone, state);
  }

  @Delete(':zone/dkim/:selector')
  @HttpCode(204)
  async removeDkim(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Param('selector') selector: string,
    @ClientIp() ip: string,
  ): Promise<void> {
    await this.commands.execute(new RemoveDkimKey(callerOf(p, ip), zone, selector));
  }

  @Put(':zone/mta-sts')
  async mtaSts(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: MtaStsDto,
    @ClientIp() ip: string,
  ) {
    const state: EmailAuthState = await this.commands.execute(
      new ChangeEmailAuth(callerOf(p, ip), zone, { type: 'ConfigureMtaSts', mtaSts: body }),
    );
    return this.queries.view(state.zone, state);
  }

  @Put(':zone/tls-rpt')
  async tlsRpt(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: TlsRptDto,
    @ClientIp() ip: string,
  ) {
    const state: EmailAuthState = await this.commands.execute(
      new ChangeEmailAuth(callerOf(p, ip), zone, { type: 'ConfigureTlsRpt', tlsRpt: body }),
    );
    return this.queries.view(state.zone, state);
  }

  @Put(':zone/bimi')
  async bimi(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: BimiDto,
    @ClientIp() ip: string,
  ) {
    const state: EmailAuthState = await this.commands.execute(
      new ChangeEmailAuth(callerOf(p, ip), zone, { type: 'ConfigureBimi', bimi: body }),
    );
    return this.queries.view(state.zone, state);
  }
}

/** The DMARC wizard (seed: DMARC wizard endpoints; contract §7). */
@Controller('email-auth/dmarc/wizard')
export class DmarcWizardController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: EmailAuthQueries,
  ) {}

  /** Opening the wizard creates the progression at monitoring (seed: DMARC stage progression). */
  @Get(':zone')
  async progression(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @ClientIp() ip: string) {
    const state: EmailAuthState = await this.commands.execute(
      new ChangeEmailAuth(callerOf(p, ip), zone, { type: 'OpenWizard' }),
    );
    return progressionView(state.zone, state);
  }

  @Get(':zone/recommendation')
  recommendation(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @ClientIp() ip: string) {
    return this.queries.recommendation(callerOf(p, ip), zone);
  }

  @Post(':zone/advance')
  @HttpCode(200)
  @ApiResponse({
    status: 409,
    description: 'not_ready: the recommendation’s blockers remain; final_stage: already at reject_full',
    schema: { $ref: '#/components/schemas/Error' },
  })
  async advance(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: AdvanceDto,
    @ClientIp() ip: string,
  ) {
    const state: EmailAuthState = await this.commands.execute(
      new ChangeEmailAuth(callerOf(p, ip), zone, {
        type: 'AdvanceStage',
        confirm: body.confirm,
        percentage: body.percentage,
      }),
    );
    const progression = state.progression!;
    return {
      message:
        progression.current_stage === 'reject_full'
          ? 'Advanced to reject_full: full enforcement is active'
          : `Advanced to ${progression.current_stage}: policy ${progression.policy} for ${progression.percentage}% of messages`,
      new_stage: progression.current_stage,
      policy: progression.policy,
      percentage: progression.percentage,
    };
  }
}

/**
 * `GET https://mta-sts.<zone>/.well-known/mta-sts.txt` (RFC 8461 §3.3): the API server
 * answers by Host header for every zone with an MTA-STS policy. Public: senders fetch it.
 */
@Public()
@Controller('.well-known')
export class MtaStsPolicyController {
  constructor(private readonly policies: MtaStsPolicies) {}

  @Get('mta-sts.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  async policy(@Headers('host') host: string | undefined): Promise<string> {
    const name = (host ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    if (!name.startsWith('mta-sts.')) throw notFound('No MTA-STS policy for this host');
    const file = await this.policies.policyFile(name.slice('mta-sts.'.length));
    if (!file) throw notFound('No MTA-STS policy for this host');
    return file;
  }
}

/** Operators run the nightly job now, optionally for an explicit time (contract §7, §13). */
@AdminOnly()
@Controller('admin/jobs')
export class DmarcNightlyAdminController {
  constructor(private readonly job: DmarcNightlyJob) {}

  @Post('dmarc-nightly')
  @HttpCode(200)
  async run(@Body() body: unknown) {
    // The body is optional, so it is checked here rather than by the DTO pipe (which needs an object).
    if (
      body === undefined ||
      body === null ||
      (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)
    )
      return this.job.run();
    const dto = body as NightlyJobDto;
    if (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).some((k) => k !== 'now'))
      throw validationFailed('the body may only hold "now"');
    const now = typeof dto.now === 'string' && ISO_TIME.test(dto.now) ? new Date(dto.now) : null;
    if (!now || Number.isNaN(now.getTime()))
      throw validationFailed('now: must be an ISO 8601 time such as 2026-03-01T02:00:00Z');
    return this.job.run(now);
  }
}
