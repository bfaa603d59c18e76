import { Decider, unreachable } from '../../shared/decider';
import { badRequest, forbidden, notFound } from '../../shared/errors';
import { EmailAuthTier, Plan } from '../../accounts/domain/account.events';
import { ApiKeyEvent, KeyAccess } from './api-key.events';

export const MAX_ACTIVE_KEYS = 5;

export interface KeyringState {
  keys: Map<string, { active: boolean; access: KeyAccess }>;
}

/** The account facts a key decision depends on, read from the account stream by the handler. */
export interface AccountSnapshot {
  accountId: number;
  plan: Plan;
  emailAuthTier: EmailAuthTier;
  emailAuthDomains: string[];
  twoFactorEnabled: boolean;
}

export type KeyringCommand =
  | {
      type: 'CreateApiKey';
      account: AccountSnapshot;
      keyId: string;
      keyHash: string;
      name: string;
      access: KeyAccess;
      domains: string[];
      failureReportSubjects: boolean;
      expiresInDays: number;
      at: string;
    }
  | { type: 'DeactivateApiKey'; keyId: string; at: string };

export const API_ACCESS_MESSAGE = 'API access requires Pro or Elite subscription';
export const ENTERPRISE_MESSAGE = 'API access needs the Email Authentication Enterprise tier.';
export const TWO_FACTOR_MESSAGE = 'Turn on two-factor authentication before creating an Email Authentication API key.';

export const planAllowsApiKeys = (plan: Plan) => plan === 'pro' || plan === 'elite';

export const keyringDecider: Decider<KeyringState, KeyringCommand, ApiKeyEvent> = {
  initialState: () => ({ keys: new Map() }),

  evolve(state, event) {
    const keys = new Map(state.keys);
    switch (event.type) {
      case 'ApiKeyCreated':
        keys.set(event.data.key_id, { active: true, access: event.data.access });
        return { keys };
      case 'ApiKeyDeactivated': {
        const key = keys.get(event.data.key_id);
        if (key) keys.set(event.data.key_id, { ...key, active: false });
        return { keys };
      }
      default:
        return unreachable(event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateApiKey': {
        const { account } = command;
        if (command.access === 'account') {
          if (!planAllowsApiKeys(account.plan)) throw forbidden('plan_required', API_ACCESS_MESSAGE);
        } else {
          if (account.emailAuthTier !== 'enterprise') throw forbidden('tier_required', ENTERPRISE_MESSAGE);
          if (!account.twoFactorEnabled) throw forbidden('two_factor_required', TWO_FACTOR_MESSAGE);
          const outside = command.domains.filter((d) => !account.emailAuthDomains.includes(d));
          if (outside.length) {
            throw badRequest(
              'validation_failed',
              `domains: not in the account's Email Authentication subscription: ${outside.join(', ')}`,
            );
          }
        }
        const active = [...state.keys.values()].filter((k) => k.active).length;
        if (active >= MAX_ACTIVE_KEYS) {
          throw badRequest('limit_reached', `Maximum number of API keys reached (${MAX_ACTIVE_KEYS})`);
        }
        const emailAuth = command.access === 'email_auth:read';
        const expiresAt = emailAuth
          ? new Date(Date.parse(command.at) + command.expiresInDays * 86_400_000).toISOString()
          : null;
        return [
          {
            type: 'ApiKeyCreated',
            data: {
              key_id: command.keyId,
              account_id: account.accountId,
              name: command.name,
              key_hash: command.keyHash,
              access: command.access,
              domains: emailAuth ? command.domains : [],
              failure_report_subjects: emailAuth ? command.failureReportSubjects : false,
              expires_at: expiresAt,
              created_at: command.at,
            },
          },
        ];
      }
      case 'DeactivateApiKey': {
        const key = state.keys.get(command.keyId);
        if (!key || !key.active) throw notFound('API key not found');
        return [{ type: 'ApiKeyDeactivated', data: { key_id: command.keyId, at: command.at } }];
      }
      default:
        return unreachable(command);
    }
  },
};
