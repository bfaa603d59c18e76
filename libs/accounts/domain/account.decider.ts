import { Decider, unreachable } from '../../shared/decider';
import { AppError, conflict, forbidden, notFound } from '../../shared/errors';
import { AccountEvent, EmailAuthSubscription, Plan } from './account.events';

export interface AccountState {
  exists: boolean;
  id: number;
  username: string;
  email: string;
  passwordHash: string;
  plan: Plan;
  emailAuth: EmailAuthSubscription;
  disabled: boolean;
  sessions: Set<string>;
  createdAt: string | null;
  /** Deleted by its owner: no command but the deletion process's completion applies (decision 0090). */
  deleted: boolean;
  dataRemoved: boolean;
}

export type AccountCommand =
  | {
      type: 'Register';
      accountId: number;
      username: string;
      email: string;
      passwordHash: string;
      at: string;
    }
  /** Password already verified by the handler (hash checks are I/O-heavy, not decisions). */
  | {
      type: 'StartSession';
      passwordOk: boolean;
      sessionId: string;
      tokenHash: string;
      at: string;
      expiresAt: string;
      secondFactor: 'none' | 'totp' | 'backup_code';
    }
  | { type: 'EndSession'; sessionId: string; at: string }
  | {
      type: 'ChangePassword';
      currentPasswordOk: boolean;
      newPasswordHash: string;
      keepSessionId: string | null;
      at: string;
    }
  | { type: 'ChangeSubscription'; plan?: Plan; emailAuth?: EmailAuthSubscription; at: string }
  | { type: 'Disable'; at: string }
  | { type: 'Enable'; at: string }
  /** Password (and second factor) already verified by the handler. */
  | { type: 'Delete'; at: string }
  | { type: 'CompleteDeletion'; at: string };

export const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'Invalid username or password');
export const accountDisabled = () => forbidden('account_disabled', 'This account is disabled');

export const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  initialState: () => ({
    exists: false,
    id: 0,
    username: '',
    email: '',
    passwordHash: '',
    plan: 'free',
    emailAuth: { tier: 'none', domains: [] },
    disabled: false,
    sessions: new Set(),
    createdAt: null,
    deleted: false,
    dataRemoved: false,
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'AccountRegistered':
        return {
          ...state,
          exists: true,
          id: event.data.account_id,
          username: event.data.username,
          email: event.data.email,
          passwordHash: event.data.password_hash,
          plan: event.data.plan,
          createdAt: event.data.registered_at,
        };
      case 'PasswordChanged': {
        const kept = event.data.kept_session_id;
        return {
          ...state,
          passwordHash: event.data.password_hash,
          sessions: new Set(kept && state.sessions.has(kept) ? [kept] : []),
        };
      }
      case 'SessionStarted':
        return { ...state, sessions: new Set([...state.sessions, event.data.session_id]) };
      case 'SessionEnded': {
        const sessions = new Set(state.sessions);
        sessions.delete(event.data.session_id);
        return { ...state, sessions };
      }
      case 'LoginFailed':
        return state;
      case 'SubscriptionChanged':
        return { ...state, plan: event.data.plan, emailAuth: event.data.email_auth };
      case 'AccountDisabled':
        return { ...state, disabled: true, sessions: new Set() };
      case 'AccountEnabled':
        return { ...state, disabled: false };
      case 'AccountDeleted':
        return { ...state, deleted: true, sessions: new Set() };
      case 'AccountDataRemoved':
        return { ...state, dataRemoved: true };
      default:
        return unreachable(event);
    }
  },

  decide(command, state) {
    if (command.type !== 'Register' && !state.exists) throw notFound('Account not found');
    // A deleted account no longer exists for anyone (logins, operators, its own sessions).
    if (state.deleted && command.type !== 'CompleteDeletion') throw notFound('Account not found');
    switch (command.type) {
      case 'Register':
        if (state.exists) throw conflict('username_taken', 'That username is taken');
        return [
          {
            type: 'AccountRegistered',
            data: {
              account_id: command.accountId,
              username: command.username,
              email: command.email,
              password_hash: command.passwordHash,
              plan: 'free',
              registered_at: command.at,
            },
          },
        ];
      case 'StartSession':
        if (!command.passwordOk) {
          return [{ type: 'LoginFailed', data: { at: command.at, reason: 'bad_password' } }];
        }
        if (state.disabled) throw accountDisabled();
        return [
          {
            type: 'SessionStarted',
            data: {
              session_id: command.sessionId,
              token_hash: command.tokenHash,
              started_at: command.at,
              expires_at: command.expiresAt,
              second_factor: command.secondFactor,
            },
          },
        ];
      case 'EndSession':
        if (!state.sessions.has(command.sessionId)) return [];
        return [
          { type: 'SessionEnded', data: { session_id: command.sessionId, ended_at: command.at, reason: 'logout' } },
        ];
      case 'ChangePassword':
        if (!command.currentPasswordOk) throw invalidCredentials();
        return [
          {
            type: 'PasswordChanged',
            data: {
              password_hash: command.newPasswordHash,
              changed_at: command.at,
              kept_session_id: command.keepSessionId,
            },
          },
        ];
      case 'ChangeSubscription': {
        const plan = command.plan ?? state.plan;
        const emailAuth = command.emailAuth ?? state.emailAuth;
        if (plan === state.plan && JSON.stringify(emailAuth) === JSON.stringify(state.emailAuth)) return [];
        return [{ type: 'SubscriptionChanged', data: { plan, email_auth: emailAuth, changed_at: command.at } }];
      }
      case 'Disable':
        return state.disabled ? [] : [{ type: 'AccountDisabled', data: { at: command.at } }];
      case 'Enable':
        return state.disabled ? [{ type: 'AccountEnabled', data: { at: command.at } }] : [];
      case 'Delete':
        return [{ type: 'AccountDeleted', data: { at: command.at } }];
      case 'CompleteDeletion':
        if (!state.deleted) throw conflict('not_deleted', 'The account has not been deleted');
        return state.dataRemoved ? [] : [{ type: 'AccountDataRemoved', data: { at: command.at } }];
      default:
        return unreachable(command);
    }
  },
};
