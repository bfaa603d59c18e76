import { constantTimeEqual, sha256Hex } from '../shared/crypto';
import { forbidden } from '../shared/errors';

/**
 * Browser sessions (contract §14): the dashboard holds the same session token a Bearer
 * client would, but in an httpOnly, SameSite=Strict cookie that scripts cannot read, so
 * an injected script cannot steal it. State-changing requests carried by that cookie must
 * also send `X-CSRF-Token`, the SHA-256 of the session token under its own label
 * (double submit bound to the session: a token set by a sibling origin or a stale
 * cookie never matches, and it reveals nothing about the session token).
 */
export const SESSION_COOKIE = 'ads_session';
/** Readable by the page's script, which echoes it in the header. */
export const CSRF_COOKIE = 'ads_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/**
 * A login that asks for a cookie instead of a token in the body. A custom header cannot be
 * sent cross-origin without a CORS preflight the service never grants, so it also stops
 * login CSRF (a foreign page logging the browser into another account).
 */
export const SESSION_TRANSPORT_HEADER = 'x-session-transport';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const csrfTokenFor = (sessionToken: string): string => sha256Hex(`csrf:${sessionToken}`);

interface CookieRequest {
  method: string;
  protocol?: string;
  headers: Record<string, string | string[] | undefined>;
  cookies?: Record<string, string | undefined>;
}

interface CookieReply {
  setCookie(name: string, value: string, options: Record<string, unknown>): unknown;
  clearCookie(name: string, options: Record<string, unknown>): unknown;
}

export const wantsCookieSession = (req: CookieRequest): boolean => req.headers[SESSION_TRANSPORT_HEADER] === 'cookie';

/** The session cookie's token, if the request has one and no Authorization header (Bearer wins). */
export function browserSessionToken(req: CookieRequest): string | null {
  if (req.headers.authorization !== undefined) return null;
  const token = req.cookies?.[SESSION_COOKIE];
  return typeof token === 'string' && token.length > 0 ? token : null;
}

/** Refuses a state-changing cookie request whose CSRF header does not match its session. */
export function assertCsrf(req: CookieRequest, sessionToken: string): void {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return;
  const sent = req.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !constantTimeEqual(sent, csrfTokenFor(sessionToken))) {
    throw forbidden('csrf_failed', 'Missing or invalid CSRF token');
  }
}

const cookieOptions = (req: CookieRequest, httpOnly: boolean, maxAgeSeconds?: number) => ({
  path: '/',
  httpOnly,
  sameSite: 'strict',
  secure: req.protocol === 'https',
  ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
});

export interface IssuedSession {
  access_token: string;
  token_type: string;
  expires_in: number;
}

/**
 * Puts an issued session into cookies; the body keeps only what a script may know
 * (never the token itself).
 */
export function setBrowserSession(req: CookieRequest, reply: CookieReply, session: IssuedSession) {
  reply.setCookie(SESSION_COOKIE, session.access_token, cookieOptions(req, true, session.expires_in));
  reply.setCookie(CSRF_COOKIE, csrfTokenFor(session.access_token), cookieOptions(req, false, session.expires_in));
  return { token_type: 'cookie', expires_in: session.expires_in };
}

export function clearBrowserSession(req: CookieRequest, reply: CookieReply): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(req, true));
  reply.clearCookie(CSRF_COOKIE, cookieOptions(req, false));
}

/** Login answers either carry a session or ask for the second factor. */
export const isIssuedSession = (r: unknown): r is IssuedSession =>
  typeof r === 'object' && r !== null && typeof (r as IssuedSession).access_token === 'string';
