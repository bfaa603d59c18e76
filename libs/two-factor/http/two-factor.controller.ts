import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isIssuedSession, setBrowserSession, wantsCookieSession } from '../../auth/browser-session';
import { CommandBus } from '@nestjs/cqrs';
import { ClientIp, CurrentPrincipal, Principal, Public, SessionOnly } from '../../auth/principal';
import {
  CompleteLoginChallenge,
  DisableTwoFactor,
  RegenerateBackupCodes,
  StartTwoFactorSetup,
  VerifyTwoFactorSetup,
} from '../application/two-factor.commands';
import { TwoFactorQueries } from '../application/two-factor.queries';
import { LoginSecondStepDto, PasswordConfirmationDto, VerifySetupDto } from './two-factor.dto';

/** 2FA settings: a session from password login only; an API key gets 403 session_required (contract §11). */
@SessionOnly()
@Controller('2fa')
export class TwoFactorController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: TwoFactorQueries,
  ) {}

  @Post('setup')
  @HttpCode(200)
  setup(@CurrentPrincipal() p: Principal, @ClientIp() ip: string) {
    return this.commands.execute(new StartTwoFactorSetup(p.accountId, ip));
  }

  @Post('verify')
  @HttpCode(200)
  verify(@CurrentPrincipal() p: Principal, @Body() body: VerifySetupDto, @ClientIp() ip: string) {
    return this.commands.execute(new VerifyTwoFactorSetup(p.accountId, body.setup_token, body.code, ip));
  }

  @Get('status')
  status(@CurrentPrincipal() p: Principal) {
    return this.queries.status(p.accountId);
  }

  @Post('disable')
  @HttpCode(200)
  disable(@CurrentPrincipal() p: Principal, @Body() body: PasswordConfirmationDto, @ClientIp() ip: string) {
    return this.commands.execute(new DisableTwoFactor(p.accountId, body.password, ip));
  }

  @Post('backup-codes')
  @HttpCode(200)
  regenerate(@CurrentPrincipal() p: Principal, @Body() body: PasswordConfirmationDto, @ClientIp() ip: string) {
    return this.commands.execute(new RegenerateBackupCodes(p.accountId, body.password, ip));
  }
}

/** The second step of password login (contract §2): the login_token is the credential, no bearer token. */
@Controller('auth/login')
export class LoginSecondStepController {
  constructor(private readonly commands: CommandBus) {}

  @Public()
  @Post('2fa')
  @HttpCode(200)
  async complete(
    @Body() body: LoginSecondStepDto,
    @ClientIp() ip: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute(new CompleteLoginChallenge(body.login_token, body.code, ip));
    return wantsCookieSession(req) && isIssuedSession(result) ? setBrowserSession(req, reply, result) : result;
  }
}
