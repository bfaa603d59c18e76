import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SECOND_FACTOR_GATE } from '../accounts/application/second-factor.port';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { resolveSecretKey } from '../shared/crypto';
import { TwoFactorLoginGate } from './application/second-factor.gate';
import { SetupDeadlineProcess } from './application/setup-deadline.process';
import { backupCodeKey, BACKUP_CODE_KEY, TwoFactorCrypto } from './application/two-factor.crypto';
import { TWO_FACTOR_COMMAND_HANDLERS } from './application/two-factor.handlers';
import { TwoFactorQueries } from './application/two-factor.queries';
import { LoginSecondStepController, TwoFactorController } from './http/two-factor.controller';

/**
 * Global so that the accounts context's password login finds SECOND_FACTOR_GATE
 * without importing this module (which would make the two contexts import each other).
 */
@Global()
@Module({
  imports: [AccountsModule],
  controllers: [TwoFactorController, LoginSecondStepController],
  providers: [
    {
      provide: BACKUP_CODE_KEY,
      inject: [APP_CONFIG],
      // The same key source as the SecretBox (SECRET_KEY, or the one generated into DATA_DIR).
      useFactory: (config: AppConfig) => backupCodeKey(resolveSecretKey(config.secretKey, config.dataDir)),
    },
    TwoFactorCrypto,
    TwoFactorQueries,
    SetupDeadlineProcess,
    ...TWO_FACTOR_COMMAND_HANDLERS,
    { provide: SECOND_FACTOR_GATE, useClass: TwoFactorLoginGate },
  ],
  exports: [SECOND_FACTOR_GATE],
})
export class TwoFactorModule {}
