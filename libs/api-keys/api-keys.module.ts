import { Global, Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { API_KEY_COMMAND_HANDLERS } from './application/api-key.handlers';
import { ApiKeyQueries } from './application/api-key.queries';
import { ApiKeysController } from './http/api-keys.controller';
import { KEY_CREDENTIALS } from '../auth/credential.port';
import { KeyCredentials } from './application/key-credentials';

/** Global: other contexts read keys through ApiKeyQueries; auth verifies keys through KEY_CREDENTIALS. */
@Global()
@Module({
  imports: [AccountsModule],
  controllers: [ApiKeysController],
  providers: [
    ApiKeyQueries,
    KeyCredentials,
    { provide: KEY_CREDENTIALS, useExisting: KeyCredentials },
    ...API_KEY_COMMAND_HANDLERS,
  ],
  exports: [ApiKeyQueries, KEY_CREDENTIALS],
})
export class ApiKeysModule {}
