import { specFor } from '../../shared/testing/decider-spec';
import { AccountSnapshot, keyringDecider, KeyringCommand } from './api-key.decider';
import { ApiKeyEvent } from './api-key.events';

const spec = specFor(keyringDecider);
const at = '2026-01-01T00:00:00.000Z';
const pro: AccountSnapshot = {
  accountId: 1,
  plan: 'pro',
  emailAuthTier: 'none',
  emailAuthDomains: [],
  twoFactorEnabled: false,
};

const create = (keyId: string, account: AccountSnapshot = pro, extra: Partial<KeyringCommand> = {}): KeyringCommand =>
  ({
    type: 'CreateApiKey',
    account,
    keyId,
    keyHash: `hash-${keyId}`,
    name: `key ${keyId}`,
    access: 'account',
    domains: [],
    failureReportSubjects: false,
    expiresInDays: 365,
    at,
    ...extra,
  }) as KeyringCommand;

const created = (keyId: string): ApiKeyEvent => ({
  type: 'ApiKeyCreated',
  data: {
    key_id: keyId,
    account_id: 1,
    name: `key ${keyId}`,
    key_hash: `hash-${keyId}`,
    access: 'account',
    domains: [],
    failure_report_subjects: false,
    expires_at: null,
    created_at: at,
  },
});
const deactivated = (keyId: string): ApiKeyEvent => ({ type: 'ApiKeyDeactivated', data: { key_id: keyId, at } });

describe('keyring decider', () => {
  it('creates an account key on Pro', () => {
    spec
      .given([])
      .when(create('a'))
      .then([created('a')]);
  });

  it.each(['free', 'plus'] as const)('refuses account keys on %s', (plan) => {
    spec
      .given([])
      .when(create('a', { ...pro, plan }))
      .thenFails(403, 'API access requires Pro or Elite subscription');
  });

  it('refuses a sixth active key, but counts deactivated keys out', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map(created);
    spec.given(five).when(create('f')).thenFails(400, 'Maximum number of API keys reached (5)');
    spec
      .given([...five, deactivated('c')])
      .when(create('f'))
      .then([created('f')]);
  });

  it('deactivates an active key once; a missing or inactive key is not found', () => {
    spec
      .given([created('a')])
      .when({ type: 'DeactivateApiKey', keyId: 'a', at })
      .then([deactivated('a')]);
    spec
      .given([created('a'), deactivated('a')])
      .when({ type: 'DeactivateApiKey', keyId: 'a', at })
      .thenFails(404, 'API key not found');
    spec.given([]).when({ type: 'DeactivateApiKey', keyId: 'zz', at }).thenFails(404, 'API key not found');
  });

  describe('email-authentication keys', () => {
    const enterprise: AccountSnapshot = {
      accountId: 1,
      plan: 'free',
      emailAuthTier: 'enterprise',
      emailAuthDomains: ['example.com'],
      twoFactorEnabled: true,
    };
    const emailKey = (account: AccountSnapshot, domains = ['example.com']) =>
      create('m', account, {
        access: 'email_auth:read',
        domains,
        failureReportSubjects: true,
        expiresInDays: 30,
      } as never);

    it('needs the Enterprise tier', () => {
      spec
        .given([])
        .when(emailKey({ ...enterprise, emailAuthTier: 'standard' }))
        .thenFails(403, 'API access needs the Email Authentication Enterprise tier.');
    });

    it('needs two-factor authentication on', () => {
      spec
        .given([])
        .when(emailKey({ ...enterprise, twoFactorEnabled: false }))
        .thenFails(403, 'Turn on two-factor authentication before creating an Email Authentication API key.');
    });

    it('only takes domains of the subscription', () => {
      spec
        .given([])
        .when(emailKey(enterprise, ['other.org']))
        .thenFails(400, /other\.org/);
    });

    it('expires after the given number of days and keeps its settings', () => {
      spec
        .given([])
        .when(emailKey(enterprise))
        .then([
          {
            type: 'ApiKeyCreated',
            data: {
              key_id: 'm',
              account_id: 1,
              name: 'key m',
              key_hash: 'hash-m',
              access: 'email_auth:read',
              domains: ['example.com'],
              failure_report_subjects: true,
              expires_at: '2026-01-31T00:00:00.000Z',
              created_at: at,
            },
          },
        ]);
    });

    it('shares the 5-key limit with account keys', () => {
      spec
        .given(['a', 'b', 'c', 'd', 'e'].map(created))
        .when(emailKey(enterprise))
        .thenFails(400, 'Maximum number of API keys reached (5)');
    });
  });
});
