import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { constantTimeEqual } from '../shared/crypto';
import { requestOrigin } from '../shared/http/request-context';
import { forbidden, notFound, unauthorized } from '../shared/errors';
import { Authenticator } from './authenticator';
import { assertCsrf, browserSessionToken } from './browser-session';
import { actorOf, AUTH_MODE, AuthMode, Principal } from './principal';

/**
 * The one global guard: every route is authenticated unless marked `@Public()`.
 * Management routes take a session or an account key; `@SessionOnly()` routes refuse
 * keys; email-auth keys only reach `@EmailAuthRead()` routes; `/admin/*` takes the
 * operator token and does not exist when none is configured.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Not an async function: Nest's guard consumer takes a boolean as it is, so public, admin and
  // email-auth routes cost no promise here, and an authenticated request chains its checks
  // on the verifier's promise instead of wrapping them in one more (decision 0133). A refusal
  // thrown before the first promise reaches Nest as a rejection, as before: its consumer
  // calls `canActivate` inside an async function.
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const mode =
      this.reflector.getAllAndOverride<AuthMode>(AUTH_MODE, [context.getHandler(), context.getClass()]) ?? 'account';
    if (mode === 'public') return true;
    const request = context.switchToHttp().getRequest<{
      method: string;
      headers: Record<string, string | undefined>;
      cookies?: Record<string, string | undefined>;
      principal?: Principal;
    }>();
    if (mode === 'admin') return this.checkAdmin(request.headers['x-admin-token']);
    if (mode === 'email_auth') return true; // the email-auth API authenticates with its own guard and messages
    const cookieToken = browserSessionToken(request);
    if (cookieToken) {
      // The dashboard's session cookie: the same session a Bearer token would be, plus CSRF (contract §14).
      assertCsrf(request, cookieToken);
      return this.authenticator.fromSessionToken(cookieToken).then((principal) => this.admit(request, principal));
    }
    return this.authenticator
      .fromBearer(request.headers.authorization)
      .then((principal) =>
        principal.via === 'api_key' ? this.admitKey(request, principal, mode) : this.admit(request, principal),
      );
  }

  /** An API key: account keys only, not on session-only routes, the plan allowing keys; its use recorded last. */
  private admitKey(request: { principal?: Principal }, principal: Principal, mode: AuthMode): Promise<true> {
    if (principal.access !== 'account') {
      throw forbidden('insufficient_scope', 'This key can only read the email-authentication API');
    }
    if (mode === 'session')
      throw forbidden('session_required', 'This endpoint needs a session from password login, not an API key');
    return this.authenticator
      .assertAccountKeyAllowed(principal)
      .then(() => this.authenticator.recordUse(principal))
      .then(() => this.admit(request, principal));
  }

  /** The request goes on as `principal`, who is also the actor of the events it causes. */
  private admit(request: { principal?: Principal }, principal: Principal): true {
    request.principal = principal;
    // The request's origin: the one its events carry, in the async context or in the command.
    requestOrigin(request).actor = actorOf(principal);
    return true;
  }

  private checkAdmin(token: string | undefined): boolean {
    if (!this.config.adminToken) throw notFound('No such endpoint');
    if (typeof token !== 'string' || !constantTimeEqual(token, this.config.adminToken)) {
      throw unauthorized('Missing or invalid admin token');
    }
    return true;
  }
}
