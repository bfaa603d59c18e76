import { Decider, unreachable } from '../../shared/decider';
import { AppError, badRequest, conflict, forbidden, tooManyRequests } from '../../shared/errors';
import { invalidCredentials } from '../../accounts/domain/account.decider';
import { TwoFactorEvent } from './two-factor.events';

/** Seed, Limits: the setup token lives 600 s. */
export const SETUP_TTL_SECONDS = 600;
/** Contract §2: a login_token lives 300 s and dies after 5 wrong codes. */
export const LOGIN_TOKEN_TTL_SECONDS = 300;
export const MAX_FAILURES_PER_LOGIN_TOKEN = 5;
/**
 * Per-account limits at the 2FA endpoints, one per secret being guessed, each over a
 * 15-minute window. Codes (login and setup): whoever knows the password can fetch a
 * fresh login_token at will, so the per-token limit alone would not bound guessing;
 * 10 wrong codes do. Passwords (disable, regenerate backup codes): 5 wrong ones, as at
 * password login. Separate counters, so a user who mistypes codes at login is not then
 * locked out of their own settings with the right password, and the reverse.
 */
export const MAX_FAILED_CODES = 10;
export const MAX_FAILED_PASSWORDS = 5;
export const ATTEMPT_WINDOW_SECONDS = 15 * 60;
export const BACKUP_CODE_COUNT = 10;

export interface PendingSetup {
  setupId: string;
  secretSealed: string;
  tokenHash: string;
  expiresAt: string;
}

export interface LoginChallenge {
  tokenHash: string;
  expiresAt: string;
  failures: number;
}

export interface TwoFactorState {
  enabled: boolean;
  /** The account's one TOTP secret, sealed; null while 2FA is off. */
  secretSealed: string | null;
  pending: PendingSetup | null;
  /** Current backup codes by keyed hash → used_at (null while unused). */
  backupCodes: Map<string, string | null>;
  /** Highest TOTP time step accepted for the current secret (replay guard). */
  lastAcceptedStep: number | null;
  /** Live login challenges by id; expired ones are dropped as new ones are issued. */
  challenges: Map<string, LoginChallenge>;
  /** Times of wrong codes (login and setup) inside the rate-limit window. */
  recentCodeFailures: string[];
  /** Times of wrong passwords (disable, regenerate) inside the rate-limit window. */
  recentPasswordFailures: string[];
}

/** A code the handler has already checked against the secret or hashed (crypto stays outside). */
export type LoginProof =
  { kind: 'totp'; step: number | null } | { kind: 'backup_code'; hash: string } | { kind: 'malformed' };

export type TwoFactorCommand =
  | { type: 'StartSetup'; setupId: string; secretSealed: string; tokenHash: string; at: string }
  | {
      type: 'VerifySetup';
      accountId: number;
      /** The account the presented token was sealed for, or null when it is not one of ours. */
      tokenAccountId: number | null;
      tokenHash: string;
      /** The time step the code matched for the pending secret, or null. */
      totpStep: number | null;
      backupCodeHashes: string[];
      at: string;
    }
  | { type: 'ExpireSetup'; setupId: string; at: string }
  | { type: 'Disable'; passwordOk: boolean; at: string }
  | { type: 'RegenerateBackupCodes'; passwordOk: boolean; codeHashes: string[]; at: string }
  | { type: 'IssueLoginChallenge'; challengeId: string; tokenHash: string; at: string }
  | { type: 'CompleteLogin'; challengeId: string; tokenHash: string; proof: LoginProof; at: string }
  /**
   * A TOTP code confirming an operation of a signed-in user (account deletion, decision 0090):
   * accepted once per time step like a login code, a wrong one counts towards the same limit.
   */
  | { type: 'ConfirmCode'; totpStep: number | null; at: string };

export const alreadyEnabled = () => badRequest('already_enabled', '2FA already enabled');
export const invalidCode = () => badRequest('invalid_code', 'Invalid verification code');
export const invalidSetupToken = () => badRequest('invalid_setup_token', 'Invalid or expired setup token');
export const setupTokenMismatch = () => forbidden('setup_token_mismatch', 'Setup token mismatch');
export const notEnabled = () => conflict('not_enabled', '2FA is not enabled');
export const invalidLoginToken = () => new AppError(401, 'invalid_login_token', 'Invalid or expired login token');

const ms = (iso: string) => Date.parse(iso);
const addSeconds = (iso: string, seconds: number) => new Date(ms(iso) + seconds * 1000).toISOString();
const withinWindow = (failures: string[], at: string) =>
  failures.filter((t) => ms(at) - ms(t) < ATTEMPT_WINDOW_SECONDS * 1000);

/** 429 while the account has used up these failed attempts; Retry-After is when the oldest one that counts leaves the window. */
function assertNotThrottled(failures: string[], max: number, at: string): void {
  const recent = withinWindow(failures, at);
  if (recent.length < max) return;
  const freesAt = ms(recent[recent.length - max]) + ATTEMPT_WINDOW_SECONDS * 1000;
  throw tooManyRequests(
    'too_many_attempts',
    'Too many failed verification attempts; try again later',
    (freesAt - ms(at)) / 1000,
  );
}

const acceptsStep = (state: TwoFactorState, step: number | null): step is number =>
  step !== null && (state.lastAcceptedStep === null || step > state.lastAcceptedStep);

/**
 * A refused attempt is still a fact (it counts towards the limits), so the decider
 * returns it as an event and the handler answers with the error this maps it to.
 */
export function refusalOf(events: TwoFactorEvent[]): AppError | null {
  const failed = events.find((e) => e.type === 'TwoFactorAttemptFailed');
  if (!failed) return null;
  return failed.data.kind === 'password' ? invalidCredentials() : invalidCode();
}

export const twoFactorDecider: Decider<TwoFactorState, TwoFactorCommand, TwoFactorEvent> = {
  initialState: () => ({
    enabled: false,
    secretSealed: null,
    pending: null,
    backupCodes: new Map(),
    lastAcceptedStep: null,
    challenges: new Map(),
    recentCodeFailures: [],
    recentPasswordFailures: [],
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'TwoFactorSetupStarted': {
        const d = event.data;
        // A new secret starts a new step history; the replay guard is per secret.
        return {
          ...state,
          pending: {
            setupId: d.setup_id,
            secretSealed: d.secret_sealed,
            tokenHash: d.token_hash,
            expiresAt: d.expires_at,
          },
          lastAcceptedStep: null,
        };
      }
      case 'TwoFactorSetupExpired':
        return state.pending?.setupId === event.data.setup_id ? { ...state, pending: null } : state;
      case 'TwoFactorEnabled':
        return { ...state, enabled: true, secretSealed: event.data.secret_sealed, pending: null };
      case 'TwoFactorDisabled':
        return {
          ...state,
          enabled: false,
          secretSealed: null,
          pending: null,
          backupCodes: new Map(),
          challenges: new Map(),
        };
      case 'BackupCodesIssued':
        return { ...state, backupCodes: new Map(event.data.code_hashes.map((h) => [h, null])) };
      case 'BackupCodeUsed': {
        const backupCodes = new Map(state.backupCodes);
        backupCodes.set(event.data.code_hash, event.data.used_at);
        return { ...state, backupCodes };
      }
      case 'TotpCodeAccepted':
        return { ...state, lastAcceptedStep: Math.max(state.lastAcceptedStep ?? -1, event.data.time_step) };
      case 'TwoFactorAttemptFailed': {
        const { challenge_id: id, at } = event.data;
        let challenges = state.challenges;
        const challenge = id ? challenges.get(id) : undefined;
        if (id && challenge) {
          challenges = new Map(challenges);
          challenges.set(id, { ...challenge, failures: challenge.failures + 1 });
        }
        if (event.data.kind === 'password') {
          return { ...state, recentPasswordFailures: [...withinWindow(state.recentPasswordFailures, at), at] };
        }
        return { ...state, challenges, recentCodeFailures: [...withinWindow(state.recentCodeFailures, at), at] };
      }
      case 'LoginChallengeIssued': {
        const d = event.data;
        // Keeps the state small: challenges past their deadline can never be completed.
        const challenges = new Map([...state.challenges].filter(([, c]) => ms(c.expiresAt) > ms(d.issued_at)));
        challenges.set(d.challenge_id, { tokenHash: d.token_hash, expiresAt: d.expires_at, failures: 0 });
        return { ...state, challenges };
      }
      case 'LoginChallengeCompleted':
      case 'LoginChallengeRevoked': {
        const challenges = new Map(state.challenges);
        challenges.delete(event.data.challenge_id);
        return { ...state, challenges };
      }
      default:
        return unreachable(event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'StartSetup':
        if (state.enabled) throw alreadyEnabled();
        return [
          {
            type: 'TwoFactorSetupStarted',
            data: {
              setup_id: command.setupId,
              secret_sealed: command.secretSealed,
              token_hash: command.tokenHash,
              started_at: command.at,
              expires_at: addSeconds(command.at, SETUP_TTL_SECONDS),
            },
          },
        ];

      case 'VerifySetup': {
        assertNotThrottled(state.recentCodeFailures, MAX_FAILED_CODES, command.at);
        if (state.enabled) throw alreadyEnabled();
        if (command.tokenAccountId === null) throw invalidSetupToken();
        if (command.tokenAccountId !== command.accountId) throw setupTokenMismatch();
        const pending = state.pending;
        if (!pending || pending.tokenHash !== command.tokenHash || ms(command.at) >= ms(pending.expiresAt)) {
          throw invalidSetupToken();
        }
        if (!acceptsStep(state, command.totpStep)) {
          return [{ type: 'TwoFactorAttemptFailed', data: { kind: 'setup_code', challenge_id: null, at: command.at } }];
        }
        return [
          { type: 'TotpCodeAccepted', data: { time_step: command.totpStep, at: command.at } },
          {
            type: 'TwoFactorEnabled',
            data: { setup_id: pending.setupId, secret_sealed: pending.secretSealed, at: command.at },
          },
          { type: 'BackupCodesIssued', data: { code_hashes: command.backupCodeHashes, at: command.at } },
        ];
      }

      case 'ExpireSetup': {
        // Idempotent: a setup already verified, replaced or expired, or not yet due, yields nothing.
        const pending = state.pending;
        if (!pending || pending.setupId !== command.setupId || ms(command.at) < ms(pending.expiresAt)) return [];
        return [{ type: 'TwoFactorSetupExpired', data: { setup_id: command.setupId, at: command.at } }];
      }

      case 'Disable':
      case 'RegenerateBackupCodes': {
        assertNotThrottled(state.recentPasswordFailures, MAX_FAILED_PASSWORDS, command.at);
        if (!command.passwordOk) {
          return [{ type: 'TwoFactorAttemptFailed', data: { kind: 'password', challenge_id: null, at: command.at } }];
        }
        if (!state.enabled) throw notEnabled();
        return command.type === 'Disable'
          ? [{ type: 'TwoFactorDisabled', data: { at: command.at } }]
          : [{ type: 'BackupCodesIssued', data: { code_hashes: command.codeHashes, at: command.at } }];
      }

      case 'IssueLoginChallenge':
        if (!state.enabled) throw notEnabled();
        return [
          {
            type: 'LoginChallengeIssued',
            data: {
              challenge_id: command.challengeId,
              token_hash: command.tokenHash,
              issued_at: command.at,
              expires_at: addSeconds(command.at, LOGIN_TOKEN_TTL_SECONDS),
            },
          },
        ];

      case 'CompleteLogin': {
        const challenge = state.challenges.get(command.challengeId);
        if (
          !state.enabled ||
          !challenge ||
          challenge.tokenHash !== command.tokenHash ||
          ms(command.at) >= ms(challenge.expiresAt)
        ) {
          throw invalidLoginToken();
        }
        assertNotThrottled(state.recentCodeFailures, MAX_FAILED_CODES, command.at);
        const { proof, challengeId, at } = command;
        if (proof.kind === 'totp' && acceptsStep(state, proof.step)) {
          return [
            { type: 'TotpCodeAccepted', data: { time_step: proof.step, at } },
            { type: 'LoginChallengeCompleted', data: { challenge_id: challengeId, method: 'totp', at } },
          ];
        }
        if (proof.kind === 'backup_code' && state.backupCodes.get(proof.hash) === null) {
          return [
            { type: 'BackupCodeUsed', data: { code_hash: proof.hash, used_at: at, challenge_id: challengeId } },
            { type: 'LoginChallengeCompleted', data: { challenge_id: challengeId, method: 'backup_code', at } },
          ];
        }
        const failed: TwoFactorEvent[] = [
          { type: 'TwoFactorAttemptFailed', data: { kind: 'login_code', challenge_id: challengeId, at } },
        ];
        if (challenge.failures + 1 >= MAX_FAILURES_PER_LOGIN_TOKEN) {
          failed.push({
            type: 'LoginChallengeRevoked',
            data: { challenge_id: challengeId, reason: 'too_many_failures', at },
          });
        }
        return failed;
      }

      case 'ConfirmCode': {
        if (!state.enabled) throw notEnabled();
        assertNotThrottled(state.recentCodeFailures, MAX_FAILED_CODES, command.at);
        if (acceptsStep(state, command.totpStep))
          return [{ type: 'TotpCodeAccepted', data: { time_step: command.totpStep, at: command.at } }];
        return [{ type: 'TwoFactorAttemptFailed', data: { kind: 'confirm_code', challenge_id: null, at: command.at } }];
      }

      default:
        return unreachable(command);
    }
  },
};

export const backupCodesRemaining = (state: TwoFactorState): number =>
  [...state.backupCodes.values()].filter((usedAt) => usedAt === null).length;
