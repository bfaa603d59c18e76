import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { requestOrigin } from '../shared/http/request-context';

/** Who a request acts as: the account owner, through a session or an API key. */
export interface Principal {
  accountId: number;
  via: 'session' | 'api_key';
  sessionId?: string;
  keyId?: string;
  /** What the credential may do: everything the account may (sessions, account keys) or read email-auth data. */
  access: 'account' | 'email_auth:read';
  /** Email-auth keys: the zones the key may see (empty: all of the account's). */
  keyDomains?: string[];
  failureReportSubjects?: boolean;
  /** The account's plan when the request was authenticated (keys only). */
  plan?: string;
  /** The account's Email Authentication tier and subscribed zones when the request was authenticated (keys only). */
  emailAuthTier?: string;
  emailAuthDomains?: string[];
  /** The account's username and email as stored (keys only): DDNS usernames are checked against them. */
  accountNames?: { username: string; email: string };
}

export const actorOf = (p: Principal): string => (p.via === 'api_key' ? `key:${p.keyId}` : `user:${p.accountId}`);

export const AUTH_MODE = 'auth_mode';
/**
 * How a route authenticates: `public` (none), `account` (session or account key; the
 * default), `session` (2FA and other settings a key must not touch), `email_auth`
 * (read-only email-authentication API keys).
 */
export type AuthMode = 'public' | 'account' | 'session' | 'email_auth' | 'admin';
export const Public = () => SetMetadata(AUTH_MODE, 'public' satisfies AuthMode);
export const SessionOnly = () => SetMetadata(AUTH_MODE, 'session' satisfies AuthMode);
export const EmailAuthRead = () => SetMetadata(AUTH_MODE, 'email_auth' satisfies AuthMode);
export const AdminOnly = () => SetMetadata(AUTH_MODE, 'admin' satisfies AuthMode);

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<{ principal?: Principal }>().principal;
  if (!principal) throw new Error('route reached without a principal: missing guard');
  return principal;
});

/** The client's address (Fastify resolves X-Forwarded-For only from TRUSTED_PROXIES). */
export const ClientIp = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string => ctx.switchToHttp().getRequest<{ ip: string }>().ip,
);

/** Who sent a request, from where, and its id (the correlation id its events carry). */
export interface Requester {
  principal: Principal;
  ip: string;
  correlationId?: string;
}

/**
 * `@CurrentPrincipal()`, `@ClientIp()` and the request's correlation id as one parameter,
 * for frequent writes: Nest resolves each route parameter through its own chain of async
 * functions and the global pipe (~9 promises a parameter; decision 0133), so a route that
 * needs all three takes them here once.
 */
export const CurrentRequester = createParamDecorator((_: unknown, ctx: ExecutionContext): Requester => {
  const request = ctx.switchToHttp().getRequest<{ principal?: Principal; ip: string }>();
  if (!request.principal) throw new Error('route reached without a principal: missing guard');
  return { principal: request.principal, ip: request.ip, correlationId: requestOrigin(request).correlationId };
});
