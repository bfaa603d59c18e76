import { Inject, Injectable } from '@nestjs/common';
import { AppError, unauthorized } from '../shared/errors';
import { CredentialVerifier, KEY_CREDENTIALS, KeyCredentialVerifier, SESSION_CREDENTIALS } from './credential.port';
import { Principal } from './principal';

/** Exactly `Bearer <token>`: one space, no extra characters (seed); the scheme name is case-insensitive (RFC 9110). */
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9_-]{8,200})$/;

export const INVALID_KEY_MESSAGE = 'The API key is not valid or has expired.';

/**
 * Resolves presented credentials to a principal: the Bearer header or the dashboard's
 * session cookie, handed to the verifier that owns the token's prefix (sessions: accounts;
 * API keys: api-keys; see credential.port.ts).
 */
@Injectable()
export class Authenticator {
  constructor(
    @Inject(SESSION_CREDENTIALS) private readonly sessions: CredentialVerifier,
    @Inject(KEY_CREDENTIALS) private readonly keys: KeyCredentialVerifier,
  ) {}

  parseBearer(header: string | undefined): string | null {
    if (typeof header !== 'string') return null;
    const m = BEARER.exec(header);
    return m ? m[1] : null;
  }

  /** Whether a token is an API key (by its prefix), without checking it. */
  isApiKey(token: string): boolean {
    return token.startsWith(this.keys.prefix);
  }

  fromBearer(header: string | undefined, invalidMessage = 'Missing or invalid credentials'): Promise<Principal> {
    const token = this.parseBearer(header);
    if (!token) throw unauthorized(invalidMessage);
    const verifier = [this.keys, this.sessions].find((v) => token.startsWith(v.prefix));
    if (!verifier) throw unauthorized(invalidMessage);
    return verifier.verify(token, invalidMessage);
  }

  /** A session token that came without the Bearer scheme (the dashboard's cookie). */
  fromSessionToken(token: string, invalidMessage = 'Missing or invalid credentials'): Promise<Principal> {
    if (!token.startsWith(this.sessions.prefix)) throw unauthorized(invalidMessage);
    return this.sessions.verify(token, invalidMessage);
  }

  fromApiKey(key: string, invalidMessage = INVALID_KEY_MESSAGE): Promise<Principal> {
    if (!this.isApiKey(key)) throw unauthorized(invalidMessage);
    return this.keys.verify(key, invalidMessage);
  }

  assertAccountKeyAllowed(principal: Principal): Promise<void> {
    return this.keys.assertAccountKeyAllowed(principal);
  }

  recordUse(principal: Principal): Promise<void> {
    return this.keys.recordUse(principal);
  }
}

export const isAuthError = (e: unknown): e is AppError => e instanceof AppError && e.status === 401;
