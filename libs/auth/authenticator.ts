import { Inject, Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../projections/projection-engine';
import { ApiKeyQueries } from '../api-keys/application/api-key.queries';
import { KEY_USAGE_STORE, KeyUsageStore } from '../api-keys/application/key-usage.store';
import { API_KEY_PREFIX } from '../api-keys/application/api-key.handlers';
import { API_ACCESS_MESSAGE, planAllowsApiKeys } from '../api-keys/domain/api-key.decider';
import { SESSION_TOKEN_PREFIX } from '../accounts/application/session-issuer';
import { CLOCK, Clock } from '../shared/clock';
import { constantTimeEqual, sha256Hex } from '../shared/crypto';
import { AppError, forbidden, unauthorized } from '../shared/errors';
import { Principal } from './principal';
import { ACCOUNTS } from '../../projections/accounts.projection';
import { SESSIONS } from '../../projections/sessions.projection';

/** Exactly `Bearer <token>`: one space, no extra characters (seed); the scheme name is case-insensitive (RFC 9110). */
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9_-]{8,200})$/;

export const INVALID_KEY_MESSAGE = 'The API key is not valid or has expired.';

/**
 * Resolves bearer credentials to a principal: session tokens (`st_…`) and API keys
 * (`ak_…`), both looked up by SHA-256 and compared in constant time. A key's
 * last use is recorded only after every check has passed.
 */
@Injectable()
export class Authenticator {
  constructor(
    private readonly projections: ProjectionEngine,
    private readonly keys: ApiKeyQueries,
    @Inject(KEY_USAGE_STORE) private readonly usage: KeyUsageStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  parseBearer(header: string | undefined): string | null {
    if (typeof header !== 'string') return null;
    const m = BEARER.exec(header);
    return m ? m[1] : null;
  }

  private account(id: number) {
    return this.projections.readModel(ACCOUNTS).findOne({ _id: id });
  }

  async fromBearer(header: string | undefined, invalidMessage = 'Missing or invalid credentials'): Promise<Principal> {
    const token = this.parseBearer(header);
    if (!token) throw unauthorized(invalidMessage);
    if (token.startsWith(API_KEY_PREFIX)) return this.fromApiKey(token, invalidMessage);
    if (token.startsWith(SESSION_TOKEN_PREFIX)) return this.fromSession(token, invalidMessage);
    throw unauthorized(invalidMessage);
  }

  /** A session token that came without the Bearer scheme (the dashboard's cookie). */
  fromSessionToken(token: string, invalidMessage = 'Missing or invalid credentials'): Promise<Principal> {
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) throw unauthorized(invalidMessage);
    return this.fromSession(token, invalidMessage);
  }

  private async fromSession(token: string, invalidMessage: string): Promise<Principal> {
    const hash = sha256Hex(token);
    const session = await this.projections.readModel(SESSIONS).findOne({ _id: hash });
    if (!session || !constantTimeEqual(session._id, hash) || !session.active) throw unauthorized(invalidMessage);
    if (Date.parse(session.expires_at) <= this.clock.now().getTime()) throw unauthorized(invalidMessage);
    const account = await this.account(session.account_id);
    if (!account || account.disabled) throw unauthorized(invalidMessage);
    return { accountId: session.account_id, via: 'session', sessionId: session.session_id, access: 'account' };
  }

  /**
   * Authenticates an API key for the given use. `ddns` and `account` uses need an
   * account key on a Pro/Elite plan; `email_auth` needs an email-auth key.
   */
  async fromApiKey(key: string, invalidMessage = INVALID_KEY_MESSAGE): Promise<Principal> {
    const hash = sha256Hex(key);
    const doc = await this.keys.byHash(hash);
    if (!doc || !constantTimeEqual(doc.key_hash, hash) || !doc.is_active) throw unauthorized(invalidMessage);
    const now = this.clock.now();
    if (doc.expires_at && Date.parse(doc.expires_at) <= now.getTime()) throw unauthorized(invalidMessage);
    const account = await this.account(doc.account_id);
    if (!account || account.disabled) throw unauthorized(invalidMessage);
    return {
      accountId: doc.account_id,
      via: 'api_key',
      keyId: doc.id,
      access: doc.access,
      keyDomains: doc.domains,
      failureReportSubjects: doc.failure_report_subjects,
      plan: account.plan,
      emailAuthTier: account.email_auth?.tier,
      emailAuthDomains: account.email_auth?.domains ?? [],
      accountNames: { username: account.username, email: account.email },
    };
  }

  /** Plan rule for account keys: a downgraded account's keys still authenticate but are refused. */
  async assertAccountKeyAllowed(principal: Principal): Promise<void> {
    if (principal.via !== 'api_key' || principal.access !== 'account') return;
    // The plan read while authenticating, so a request costs one account lookup.
    const plan = principal.plan ?? (await this.account(principal.accountId))?.plan;
    if (!plan || !planAllowsApiKeys(plan as never)) throw forbidden('plan_required', API_ACCESS_MESSAGE);
  }

  async recordUse(principal: Principal): Promise<void> {
    if (principal.via === 'api_key' && principal.keyId) await this.usage.recordUse(principal.keyId, this.clock.now());
  }
}

export const isAuthError = (e: unknown): e is AppError => e instanceof AppError && e.status === 401;
