import { Module } from '@nestjs/common';
import { AccountDirectory } from './application/account-directory';
import { ACCOUNT_COMMAND_HANDLERS } from './application/account.handlers';
import { AccountQueries } from './application/account.queries';
import { LoginThrottle } from './application/login-throttle';
import { SessionIssuer } from './application/session-issuer';
import { AccountsController } from './http/accounts.controller';

@Module({
  controllers: [AccountsController],
  providers: [AccountDirectory, AccountQueries, LoginThrottle, SessionIssuer, ...ACCOUNT_COMMAND_HANDLERS],
  exports: [AccountDirectory, AccountQueries, SessionIssuer],
})
export class AccountsModule {}
