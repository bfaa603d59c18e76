import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Authenticator, INVALID_KEY_MESSAGE } from '../../auth/authenticator';
import { Principal } from '../../auth/principal';
import { API_KEY_PREFIX } from '../../api-keys/application/api-key.handlers';
import { ENTERPRISE_MESSAGE } from '../../api-keys/domain/api-key.decider';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { AppError, badRequest, forbidden, unauthorized } from '../../shared/errors';
import { RATE_LIMIT_STORE, RateLimitStore } from '../application/rate-limit.store';
import { rateDecision, windowStart } from '../domain/rate-limit';

export const SCOPE_MESSAGE = 'This key does not have the email_auth:read scope.';
export const USER_AGENT_MESSAGE = 'Send a User-Agent header that names your integration.';
export const RATE_LIMIT_MESSAGE = 'Rate limit exceeded: 60 requests a minute per key.';

/**
 * The email-auth API's own guard (the global guard lets `@EmailAuthRead()` routes through):
 * a User-Agent, an API key (sessions have no place here), the `email_auth:read` scope, the
 * account still on Enterprise, then one hit of the key's shared per-minute counter. The
 * key's last use is recorded only when all of this passed.
 */
@Injectable()
export class EmailAuthApiGuard implements CanActivate {
  constructor(
    private readonly authenticator: Authenticator,
    @Inject(RATE_LIMIT_STORE) private readonly rates: RateLimitStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, string | string[] | undefined>; principal?: Principal }>();
    request.principal = await this.admit(request.headers, context.switchToHttp().getResponse<FastifyReply>());
    return true;
  }

  /**
   * Every check of the API in order, the rate-limit headers set on `reply`, the key's use
   * recorded: the caller's principal, or the AppError to answer with.
   */
  async admit(headers: Record<string, string | string[] | undefined>, reply: FastifyReply): Promise<Principal> {
    const ua = headers['user-agent'];
    if (typeof ua !== 'string' || ua.trim() === '') throw badRequest('user_agent_required', USER_AGENT_MESSAGE);
    const authorization = headers.authorization;
    const token = this.authenticator.parseBearer(typeof authorization === 'string' ? authorization : undefined);
    if (!token || !token.startsWith(API_KEY_PREFIX)) throw unauthorized(INVALID_KEY_MESSAGE);
    const principal = await this.authenticator.fromApiKey(token, INVALID_KEY_MESSAGE);
    if (principal.access !== 'email_auth:read') throw forbidden('insufficient_scope', SCOPE_MESSAGE);
    if (principal.emailAuthTier !== 'enterprise') throw forbidden('tier_required', ENTERPRISE_MESSAGE);

    const now = this.clock.now().getTime();
    const start = windowStart(now);
    const decision = rateDecision(
      await this.rates.hit(principal.keyId!, start),
      start,
      now,
      this.config.emailAuthRateLimit,
    );
    const limits = {
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.reset),
    };
    if (!decision.allowed) {
      throw new AppError(429, 'rate_limited', RATE_LIMIT_MESSAGE, {
        ...limits,
        'Retry-After': String(decision.retryAfterSeconds),
      });
    }
    void reply.headers(limits);
    await this.authenticator.recordUse(principal);
    return principal;
  }
}
