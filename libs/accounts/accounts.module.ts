import { Module } from '@nestjs/common';
import { SESSION_CREDENTIALS } from '../auth/credential.port';
import { AccountDirectory } from './application/account-directory';
import { AccountStandings } from './application/account-standing';
import { SessionCredentials } from './application/session-credentials';
import { ACCOUNT_COMMAND_HANDLERS } from './application/account.handlers';
import { AccountQueries } from './application/account.queries';
import { PlanQuota } from './application/plan-quota';
import { LoginThrottle } from './application/login-throttle';
import { SessionIssuer } from './application/session-issuer';
import { AccountsController } from './http/accounts.controller';
import { AuditAdminController } from './http/audit-admin.controller';
import { AuditExportController } from './http/audit-export.controller';
import { AuditExportQueries } from './application/audit-export';
import { SessionsController } from './http/sessions.controller';
import { SessionList } from './application/session-list';

@Module({
  controllers: [AccountsController, AuditExportController, AuditAdminController, SessionsController],
  providers: [
    AccountDirectory,
    AccountQueries,
    AuditExportQueries,
    AccountStandings,
    LoginThrottle,
    PlanQuota,
    SessionIssuer,
    SessionCredentials,
    SessionList,
    { provide: SESSION_CREDENTIALS, useExisting: SessionCredentials },
    ...ACCOUNT_COMMAND_HANDLERS,
  ],
  exports: [AccountDirectory, AccountQueries, PlanQuota, AccountStandings, SessionIssuer, SESSION_CREDENTIALS],
})
export class AccountsModule {}
