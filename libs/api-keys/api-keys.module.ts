import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { API_KEY_COMMAND_HANDLERS } from './application/api-key.handlers';
import { ApiKeyQueries } from './application/api-key.queries';
import { ApiKeysController } from './http/api-keys.controller';
import { Authenticator } from '../auth/authenticator';

/** Global so that every bounded context's routes can authenticate through the one Authenticator. */
@Global()
@Module({
  imports: [AccountsModule],
  controllers: [ApiKeysController],
  providers: [ApiKeyQueries, Authenticator, ...API_KEY_COMMAND_HANDLERS],
  exports: [ApiKeyQueries, Authenticator],
})
export class ApiKeysModule {}
