import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIp, CurrentPrincipal, Principal, SessionOnly } from '../../auth/principal';
import { Logout } from '../application/account.commands';
import { SessionList } from '../application/session-list';

/** The account's active sessions, and ending one of them (issue 27). Sessions only: a key cannot end the owner's sessions. */
@ApiTags('account')
@Controller('account/sessions')
export class SessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly sessions: SessionList,
  ) {}

  @SessionOnly()
  @Get()
  @ApiOperation({ summary: "The account's active sessions, newest first; `current` marks the one asking" })
  list(@CurrentPrincipal() p: Principal) {
    return this.sessions.list(p.accountId, p.sessionId);
  }

  @SessionOnly()
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Ends one session of the account at once (its token stops working; an open dashboard signs out)',
  })
  async revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string, @ClientIp() ip: string): Promise<void> {
    await this.sessions.assertActive(p.accountId, id);
    await this.commands.execute(new Logout(p.accountId, id, ip));
  }
}
