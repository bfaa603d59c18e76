import { Inject, Injectable } from '@nestjs/common';
import { AccountStandings } from '../../accounts/application/account-standing';
import type { KeyCredentialVerifier } from '../../auth/credential.port';
import type { Principal } from '../../auth/principal';
import { CLOCK, Clock } from '../../shared/clock';
import { constantTimeEqual, sha256Hex } from '../../shared/crypto';
import { forbidden, unauthorized } from '../../shared/errors';
import { API_ACCESS_MESSAGE, planAllowsApiKeys } from '../domain/api-key.decider';
import { API_KEY_PREFIX } from './api-key.handlers';
import { ApiKeyQueries } from './api-key.queries';
import { KEY_USAGE_STORE, KeyUsageStore } from './key-usage.store';

/**
 * API keys (`ak_…`): looked up by SHA-256 and compared in constant time; refused when
 * deactivated, expired or the account disabled. A key's last use is recorded only after
 * every check of the request has passed (the guard calls `recordUse`).
 */
@Injectable()
export class KeyCredentials implements KeyCredentialVerifier {
  readonly prefix = API_KEY_PREFIX;

  constructor(
    private readonly keys: ApiKeyQueries,
    private readonly accounts: AccountStandings,
    @Inject(KEY_USAGE_STORE) private readonly usage: KeyUsageStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async verify(key: string, invalidMessage: string): Promise<Principal> {
    const hash = sha256Hex(key);
    const doc = await this.keys.byHash(hash);
    if (!doc || !constantTimeEqual(doc.key_hash, hash) || !doc.is_active) throw unauthorized(invalidMessage);
    if (doc.expires_at && Date.parse(doc.expires_at) <= this.clock.now().getTime()) throw unauthorized(invalidMessage);
    const account = await this.accounts.of(doc.account_id);
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

  // These two run on every request made with a key (each DDNS update): not async functions, so the usual case
  // (the plan already read with the key; the use joining the turn's write) costs no wrapping promise (decision 0126).
  assertAccountKeyAllowed(principal: Principal): Promise<void> {
    if (principal.via !== 'api_key' || principal.access !== 'account') return Promise.resolve();
    // The plan read while authenticating, so a request costs one account lookup.
    if (principal.plan) return planAllowed(principal.plan);
    return this.accounts.of(principal.accountId).then((account) => planAllowed(account?.plan));
  }

  recordUse(principal: Principal): Promise<void> {
    return principal.via === 'api_key' && principal.keyId
      ? this.usage.recordUse(principal.keyId, this.clock.now())
      : Promise.resolve();
  }
}

function planAllowed(plan: string | undefined): Promise<void> {
  return plan && planAllowsApiKeys(plan as never)
    ? Promise.resolve()
    : Promise.reject(forbidden('plan_required', API_ACCESS_MESSAGE));
}
