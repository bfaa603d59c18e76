import { Body, Controller, Delete, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import {
  clearBrowserSession,
  isIssuedSession,
  setBrowserSession,
  wantsCookieSession,
} from '../../auth/browser-session';
import { ClientIp, CurrentPrincipal, Principal, Public, SessionOnly, actorOf } from '../../auth/principal';
import { parseLimit, parseOptionalString } from '../../shared/http/paging';
import {
  ChangePassword,
  DeleteAccount,
  LoginWithPassword,
  Logout,
  RegisterAccount,
} from '../application/account.commands';
import { AccountQueries } from '../application/account.queries';
import { ChangePasswordDto, DeleteAccountDto, LoginDto, RegisterDto } from './account.dto';

@Controller()
export class AccountsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: AccountQueries,
  ) {}

  @Public()
  @Post('auth/register')
  @HttpCode(201)
  async register(@Body() body: RegisterDto, @ClientIp() ip: string) {
    const id = await this.commands.execute(
      new RegisterAccount(body.username, body.email.toLowerCase(), body.password, ip),
    );
    return this.queries.account(id);
  }

  @Public()
  @Post('auth/login')
  @HttpCode(200)
  async login(
    @Body() body: LoginDto,
    @ClientIp() ip: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute(new LoginWithPassword(body.username, body.password, ip));
    return wantsCookieSession(req) && isIssuedSession(result) ? setBrowserSession(req, reply, result) : result;
  }

  @SessionOnly()
  @Post('auth/logout')
  @HttpCode(204)
  async logout(
    @CurrentPrincipal() p: Principal,
    @ClientIp() ip: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.commands.execute(new Logout(p.accountId, p.sessionId!, ip));
    clearBrowserSession(req, reply);
  }

  @Get('account')
  account(@CurrentPrincipal() p: Principal) {
    return this.queries.account(p.accountId);
  }

  @SessionOnly()
  @Post('account/password')
  @HttpCode(204)
  async changePassword(@CurrentPrincipal() p: Principal, @Body() body: ChangePasswordDto, @ClientIp() ip: string) {
    await this.commands.execute(
      new ChangePassword(p.accountId, body.current_password, body.new_password, p.sessionId ?? null, actorOf(p), ip),
    );
  }

  /**
   * Deletes the account (decision 0090): sessions and keys stop at once, the account's hosts,
   * zones, certificates, monitors and webhooks are removed by the account-deletion process,
   * the audit log is kept. A browser's session cookie is cleared with the answer.
   */
  @SessionOnly()
  @Delete('account')
  @HttpCode(204)
  async deleteAccount(
    @CurrentPrincipal() p: Principal,
    @Body() body: DeleteAccountDto,
    @ClientIp() ip: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.commands.execute(new DeleteAccount(p.accountId, body.password, body.code, actorOf(p), ip));
    clearBrowserSession(req, reply);
  }

  @Get('account/audit')
  audit(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    return this.queries.audit(p.accountId, parseOptionalString(query.cursor, 'cursor'), parseLimit(query.limit, 50));
  }
}
