import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { Authenticator } from './authenticator';

/**
 * Authentication as its own module. The composition root passes the modules that provide
 * the credential verifiers (SESSION_CREDENTIALS, KEY_CREDENTIALS), so auth imports no
 * context that issues credentials. Global: every context's routes authenticate through it.
 */
@Global()
@Module({})
export class AuthModule {
  static forRoot(credentialModules: Type[]): DynamicModule {
    return { module: AuthModule, imports: credentialModules, providers: [Authenticator], exports: [Authenticator] };
  }
}
