import { fold } from '../../shared/decider';
import { AppError } from '../../shared/errors';
import { specFor } from '../../shared/testing/decider-spec';
import {
  ATTEMPT_WINDOW_SECONDS,
  backupCodesRemaining,
  MAX_FAILED_CODES,
  MAX_FAILED_PASSWORDS,
  refusalOf,
  TwoFactorCommand,
  twoFactorDecider,
} from './two-factor.decider';
import { TwoFactorEvent } from './two-factor.events';

const spec = specFor(twoFactorDecider);

/**
 * The shared given/when/then, plus what 2FA adds: the folded state, and refused
 * attempts that are recorded as facts and answered with the error they map to.
 */
const given = (events: TwoFactorEvent[]) => {
  const state = fold(twoFactorDecider, events);
  return {
    state,
    when: (command: TwoFactorCommand) => ({
      ...spec.given(events).when(command),
      thenFailedAttempt: (status: number, code: string) => {
        const decided = twoFactorDecider.decide(command, state);
        const refusal = refusalOf(decided);
        expect(refusal?.status).toBe(status);
        expect(refusal?.code).toBe(code);
        return decided;
      },
    }),
  };
};

const T0 = Date.parse('2024-05-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const ACCOUNT = 7;

const setupStarted = (id = 'setup-1', startedAt = 0): TwoFactorEvent => ({
  type: 'TwoFactorSetupStarted',
  data: {
    setup_id: id,
    secret_sealed: `sealed-${id}`,
    token_hash: `token-${id}`,
    started_at: at(startedAt),
    expires_at: at(startedAt + 600),
  },
});
const codeHashes = (batch: string) => Array.from({ length: 10 }, (_, i) => `${batch}-${i}`);
/** What a completed verification appends: the accepted step, the enablement, the codes. */
const enabledWith = (step = 100, batch = 'b1'): TwoFactorEvent[] => [
  setupStarted(),
  { type: 'TotpCodeAccepted', data: { time_step: step, at: at(10) } },
  { type: 'TwoFactorEnabled', data: { setup_id: 'setup-1', secret_sealed: 'sealed-setup-1', at: at(10) } },
  { type: 'BackupCodesIssued', data: { code_hashes: codeHashes(batch), at: at(10) } },
];
const challengeIssued = (id = 'c1', issuedAt = 20): TwoFactorEvent => ({
  type: 'LoginChallengeIssued',
  data: { challenge_id: id, token_hash: `login-${id}`, issued_at: at(issuedAt), expires_at: at(issuedAt + 300) },
});

const verify = (over: Partial<Extract<TwoFactorCommand, { type: 'VerifySetup' }>> = {}): TwoFactorCommand => ({
  type: 'VerifySetup',
  accountId: ACCOUNT,
  tokenAccountId: ACCOUNT,
  tokenHash: 'token-setup-1',
  totpStep: 100,
  backupCodeHashes: codeHashes('b1'),
  at: at(10),
  ...over,
});
const login = (
  proof: Extract<TwoFactorCommand, { type: 'CompleteLogin' }>['proof'],
  over: Partial<Extract<TwoFactorCommand, { type: 'CompleteLogin' }>> = {},
): TwoFactorCommand => ({
  type: 'CompleteLogin',
  challengeId: 'c1',
  tokenHash: 'login-c1',
  proof,
  at: at(30),
  ...over,
});
const loginFailure = (seconds: number, challenge: string | null = 'c1'): TwoFactorEvent => ({
  type: 'TwoFactorAttemptFailed',
  data: { kind: 'login_code', challenge_id: challenge, at: at(seconds) },
});

describe('2FA setup (seed: disabled --setup--> disabled, pending verification)', () => {
  it('starts a setup with a 600-second deadline when 2FA is off', () => {
    given([])
      .when({ type: 'StartSetup', setupId: 's', secretSealed: 'sealed', tokenHash: 'h', at: at(0) })
      .then([
        {
          type: 'TwoFactorSetupStarted',
          data: { setup_id: 's', secret_sealed: 'sealed', token_hash: 'h', started_at: at(0), expires_at: at(600) },
        },
      ]);
  });

  it('refuses setup while 2FA is enabled', () => {
    given(enabledWith())
      .when({ type: 'StartSetup', setupId: 's2', secretSealed: 'x', tokenHash: 'y', at: at(50) })
      .thenFails(400, '2FA already enabled');
  });

  it('a second setup replaces the first: one secret per account, the earlier token stops working', () => {
    const g = given([setupStarted('setup-1'), setupStarted('setup-2', 5)]);
    expect(g.state.pending?.setupId).toBe('setup-2');
    g.when(verify({ tokenHash: 'token-setup-1' })).thenFails(400, 'invalid_setup_token');
    g.when(verify({ tokenHash: 'token-setup-2' })).then([
      { type: 'TotpCodeAccepted', data: { time_step: 100, at: at(10) } },
      { type: 'TwoFactorEnabled', data: { setup_id: 'setup-2', secret_sealed: 'sealed-setup-2', at: at(10) } },
      { type: 'BackupCodesIssued', data: { code_hashes: codeHashes('b1'), at: at(10) } },
    ]);
  });
});

describe('2FA verify (seed: disabled --verify--> enabled)', () => {
  it('enables 2FA with the pending secret and 10 backup codes, recording the accepted step', () => {
    given([setupStarted()])
      .when(verify())
      .then([
        { type: 'TotpCodeAccepted', data: { time_step: 100, at: at(10) } },
        { type: 'TwoFactorEnabled', data: { setup_id: 'setup-1', secret_sealed: 'sealed-setup-1', at: at(10) } },
        { type: 'BackupCodesIssued', data: { code_hashes: codeHashes('b1'), at: at(10) } },
      ]);
    const state = given(enabledWith()).state;
    expect(state.enabled).toBe(true);
    expect(state.secretSealed).toBe('sealed-setup-1');
    expect(state.pending).toBeNull();
    expect(backupCodesRemaining(state)).toBe(10);
  });

  it('accepts the token up to the last instant before 600 s and refuses it from 600 s on', () => {
    expect(twoFactorDecider.decide(verify({ at: at(599.999) }), given([setupStarted()]).state)).toHaveLength(3);
    given([setupStarted()])
      .when(verify({ at: at(600) }))
      .thenFails(400, 'Invalid or expired setup token');
  });

  it('refuses a token issued to another user with 403', () => {
    given([setupStarted()])
      .when(verify({ tokenAccountId: 8 }))
      .thenFails(403, 'Setup token mismatch');
  });

  it('refuses a token that is not one of ours, or not the pending one', () => {
    given([setupStarted()])
      .when(verify({ tokenAccountId: null }))
      .thenFails(400, 'invalid_setup_token');
    given([setupStarted()])
      .when(verify({ tokenHash: 'forged' }))
      .thenFails(400, 'invalid_setup_token');
    given([]).when(verify()).thenFails(400, 'invalid_setup_token');
  });

  it('records a wrong code as a failed attempt answered "Invalid verification code"', () => {
    const events = given([setupStarted()])
      .when(verify({ totpStep: null }))
      .thenFailedAttempt(400, 'invalid_code');
    expect(events).toEqual([
      { type: 'TwoFactorAttemptFailed', data: { kind: 'setup_code', challenge_id: null, at: at(10) } },
    ]);
    expect(refusalOf(events)?.message).toBe('Invalid verification code');
  });

  it('refuses verify once enabled', () => {
    given(enabledWith())
      .when(verify({ at: at(20), totpStep: 101 }))
      .thenFails(400, 'already_enabled');
  });
});

describe('2FA setup deadline (process manager)', () => {
  const expire = (seconds: number, setupId = 'setup-1'): TwoFactorCommand => ({
    type: 'ExpireSetup',
    setupId,
    at: at(seconds),
  });

  it('does nothing before the deadline and expires the setup at it', () => {
    given([setupStarted()]).when(expire(599)).then([]);
    given([setupStarted()])
      .when(expire(600))
      .then([{ type: 'TwoFactorSetupExpired', data: { setup_id: 'setup-1', at: at(600) } }]);
  });

  it('is idempotent: an expired, verified or replaced setup is not expired again', () => {
    const expired: TwoFactorEvent = { type: 'TwoFactorSetupExpired', data: { setup_id: 'setup-1', at: at(600) } };
    given([setupStarted(), expired]).when(expire(700)).then([]);
    given(enabledWith()).when(expire(700)).then([]);
    given([setupStarted('setup-1'), setupStarted('setup-2', 100)])
      .when(expire(650, 'setup-1'))
      .then([]);
  });

  it('an expired setup can no longer be verified', () => {
    const expired: TwoFactorEvent = { type: 'TwoFactorSetupExpired', data: { setup_id: 'setup-1', at: at(600) } };
    given([setupStarted(), expired])
      .when(verify({ at: at(300) }))
      .thenFails(400, 'invalid_setup_token');
  });
});

describe('2FA disable and backup-code regeneration (seed: enabled --disable--> disabled, enabled --regenerate--> enabled)', () => {
  it('disables with the correct password, forgetting secret, codes and open login challenges', () => {
    given(enabledWith())
      .when({ type: 'Disable', passwordOk: true, at: at(50) })
      .then([{ type: 'TwoFactorDisabled', data: { at: at(50) } }]);
    const state = given([
      ...enabledWith(),
      challengeIssued(),
      { type: 'TwoFactorDisabled', data: { at: at(50) } },
    ]).state;
    expect(state).toMatchObject({ enabled: false, secretSealed: null, pending: null });
    expect(backupCodesRemaining(state)).toBe(0);
    expect(state.challenges.size).toBe(0);
  });

  it('records a wrong password as a failed attempt answered 401 invalid_credentials', () => {
    given(enabledWith())
      .when({ type: 'Disable', passwordOk: false, at: at(50) })
      .thenFailedAttempt(401, 'invalid_credentials');
    given(enabledWith())
      .when({ type: 'RegenerateBackupCodes', passwordOk: false, codeHashes: codeHashes('b2'), at: at(50) })
      .thenFailedAttempt(401, 'invalid_credentials');
  });

  it('refuses both when 2FA is off (409 not_enabled)', () => {
    given([])
      .when({ type: 'Disable', passwordOk: true, at: at(50) })
      .thenFails(409, 'not_enabled');
    given([])
      .when({ type: 'RegenerateBackupCodes', passwordOk: true, codeHashes: [], at: at(50) })
      .thenFails(409, 'not_enabled');
  });

  it('regeneration issues 10 new codes and invalidates every earlier one', () => {
    given(enabledWith())
      .when({ type: 'RegenerateBackupCodes', passwordOk: true, codeHashes: codeHashes('b2'), at: at(50) })
      .then([{ type: 'BackupCodesIssued', data: { code_hashes: codeHashes('b2'), at: at(50) } }]);
    const regenerated = [
      ...enabledWith(),
      { type: 'BackupCodesIssued', data: { code_hashes: codeHashes('b2'), at: at(50) } } as TwoFactorEvent,
      challengeIssued('c1', 60),
    ];
    given(regenerated)
      .when(login({ kind: 'backup_code', hash: 'b1-0' }, { at: at(70) }))
      .thenFailedAttempt(400, 'invalid_code');
    expect(
      twoFactorDecider.decide(login({ kind: 'backup_code', hash: 'b2-0' }, { at: at(70) }), given(regenerated).state)[0]
        .type,
    ).toBe('BackupCodeUsed');
  });
});

describe('login second step', () => {
  const enabledWithChallenge = [...enabledWith(), challengeIssued()];

  it('issues a 300-second login challenge only when 2FA is on', () => {
    given(enabledWith())
      .when({ type: 'IssueLoginChallenge', challengeId: 'c1', tokenHash: 'login-c1', at: at(20) })
      .then([challengeIssued()]);
    given([])
      .when({ type: 'IssueLoginChallenge', challengeId: 'c1', tokenHash: 'h', at: at(20) })
      .thenFails(409, 'not_enabled');
  });

  it('completes with a TOTP code of a new step and moves the replay guard', () => {
    given(enabledWithChallenge)
      .when(login({ kind: 'totp', step: 101 }))
      .then([
        { type: 'TotpCodeAccepted', data: { time_step: 101, at: at(30) } },
        { type: 'LoginChallengeCompleted', data: { challenge_id: 'c1', method: 'totp', at: at(30) } },
      ]);
  });

  it('never accepts a step again once accepted, whether at verify or at login', () => {
    given(enabledWithChallenge)
      .when(login({ kind: 'totp', step: 100 }))
      .thenFailedAttempt(400, 'invalid_code');
    given(enabledWithChallenge)
      .when(login({ kind: 'totp', step: 99 }))
      .thenFailedAttempt(400, 'invalid_code');
    const afterLogin = [
      ...enabledWithChallenge,
      { type: 'TotpCodeAccepted', data: { time_step: 101, at: at(30) } } as TwoFactorEvent,
      challengeIssued('c2', 31),
    ];
    given(afterLogin)
      .when(login({ kind: 'totp', step: 101 }, { challengeId: 'c2', tokenHash: 'login-c2', at: at(35) }))
      .thenFailedAttempt(400, 'invalid_code');
  });

  it('a new secret starts a fresh step history (re-enabling within the same minute works)', () => {
    const reEnabled = [
      ...enabledWith(100),
      { type: 'TwoFactorDisabled', data: { at: at(20) } } as TwoFactorEvent,
      setupStarted('setup-2', 21),
    ];
    expect(
      twoFactorDecider.decide(
        verify({ tokenHash: 'token-setup-2', totpStep: 100, at: at(25) }),
        given(reEnabled).state,
      ),
    ).toHaveLength(3);
  });

  it('uses an unused backup code once, recording used_at (seed: backup code unused --used at login--> used)', () => {
    given(enabledWithChallenge)
      .when(login({ kind: 'backup_code', hash: 'b1-3' }))
      .then([
        { type: 'BackupCodeUsed', data: { code_hash: 'b1-3', used_at: at(30), challenge_id: 'c1' } },
        { type: 'LoginChallengeCompleted', data: { challenge_id: 'c1', method: 'backup_code', at: at(30) } },
      ]);
    const used = [
      ...enabledWithChallenge,
      ...twoFactorDecider.decide(login({ kind: 'backup_code', hash: 'b1-3' }), given(enabledWithChallenge).state),
      challengeIssued('c2', 40),
    ];
    const state = given(used).state;
    expect(state.backupCodes.get('b1-3')).toBe(at(30));
    expect(backupCodesRemaining(state)).toBe(9);
    given(used)
      .when(login({ kind: 'backup_code', hash: 'b1-3' }, { challengeId: 'c2', tokenHash: 'login-c2', at: at(45) }))
      .thenFailedAttempt(400, 'invalid_code');
  });

  it('a completed challenge cannot be used again', () => {
    const completed = [
      ...enabledWithChallenge,
      ...twoFactorDecider.decide(login({ kind: 'totp', step: 101 }), given(enabledWithChallenge).state),
    ];
    given(completed)
      .when(login({ kind: 'totp', step: 102 }, { at: at(60) }))
      .thenFails(401, 'invalid_login_token');
  });

  it('refuses unknown, mismatched and expired (300 s) login tokens with 401', () => {
    given(enabledWithChallenge)
      .when(login({ kind: 'totp', step: 101 }, { challengeId: 'nope' }))
      .thenFails(401, 'invalid_login_token');
    given(enabledWithChallenge)
      .when(login({ kind: 'totp', step: 101 }, { tokenHash: 'other' }))
      .thenFails(401, 'invalid_login_token');
    expect(
      twoFactorDecider.decide(
        login({ kind: 'totp', step: 101 }, { at: at(319.999) }),
        given(enabledWithChallenge).state,
      ),
    ).toHaveLength(2);
    given(enabledWithChallenge)
      .when(login({ kind: 'totp', step: 101 }, { at: at(320) }))
      .thenFails(401, 'invalid_login_token');
  });

  it('the fifth wrong code revokes the login token', () => {
    const fourWrong = [...enabledWithChallenge, ...[31, 32, 33, 34].map((s) => loginFailure(s))];
    given(fourWrong)
      .when(login({ kind: 'malformed' }, { at: at(35) }))
      .then([
        { type: 'TwoFactorAttemptFailed', data: { kind: 'login_code', challenge_id: 'c1', at: at(35) } },
        { type: 'LoginChallengeRevoked', data: { challenge_id: 'c1', reason: 'too_many_failures', at: at(35) } },
      ]);
    const fiveWrong = [
      ...fourWrong,
      ...twoFactorDecider.decide(login({ kind: 'malformed' }, { at: at(35) }), given(fourWrong).state),
    ];
    given(fiveWrong)
      .when(login({ kind: 'totp', step: 101 }, { at: at(36) }))
      .thenFails(401, 'invalid_login_token');
  });

  it('disabling 2FA kills open login tokens', () => {
    given([...enabledWithChallenge, { type: 'TwoFactorDisabled', data: { at: at(25) } }])
      .when(login({ kind: 'totp', step: 101 }))
      .thenFails(401, 'invalid_login_token');
  });
});

describe('per-account attempt limit', () => {
  // Ten failures spread over two login tokens (5 each), between t=100 and t=109.
  const tenFailures = [
    ...enabledWith(),
    challengeIssued('c1', 99),
    ...[100, 101, 102, 103, 104].map((s) => loginFailure(s, 'c1')),
    challengeIssued('c2', 105),
    ...[105, 106, 107, 108, 109].map((s) => loginFailure(s, 'c2')),
    challengeIssued('c3', 110),
  ];

  it(`answers 429 too_many_attempts after ${MAX_FAILED_CODES} wrong codes, with Retry-After until the oldest leaves the window`, () => {
    const command = login({ kind: 'totp', step: 101 }, { challengeId: 'c3', tokenHash: 'login-c3', at: at(120) });
    given(tenFailures).when(command).thenFails(429, 'too_many_attempts');
    const refused = (() => {
      try {
        return twoFactorDecider.decide(command, given(tenFailures).state);
      } catch (e) {
        return e as AppError;
      }
    })() as AppError;
    // The oldest failure (t=100) leaves the 15-minute window at t=1000; asked at t=120.
    expect(refused.headers['Retry-After']).toBe(String(ATTEMPT_WINDOW_SECONDS - 20));
  });

  it('wrong login codes do not lock the password confirmations of the signed-in user', () => {
    given(tenFailures)
      .when({ type: 'Disable', passwordOk: true, at: at(120) })
      .then([{ type: 'TwoFactorDisabled', data: { at: at(120) } }]);
    given(tenFailures)
      .when({ type: 'RegenerateBackupCodes', passwordOk: true, codeHashes: codeHashes('b2'), at: at(120) })
      .then([{ type: 'BackupCodesIssued', data: { code_hashes: codeHashes('b2'), at: at(120) } }]);
  });

  it(`answers 429 to password confirmations after ${MAX_FAILED_PASSWORDS} wrong passwords, and still takes login codes`, () => {
    const wrongPasswords = [
      ...enabledWith(),
      ...[100, 101, 102, 103, 104].map((s): TwoFactorEvent => ({
        type: 'TwoFactorAttemptFailed',
        data: { kind: 'password', challenge_id: null, at: at(s) },
      })),
      challengeIssued('c1', 110),
    ];
    given(wrongPasswords)
      .when({ type: 'Disable', passwordOk: true, at: at(120) })
      .thenFails(429, 'too_many_attempts');
    given(wrongPasswords.slice(0, -2))
      .when({ type: 'Disable', passwordOk: true, at: at(120) })
      .then([{ type: 'TwoFactorDisabled', data: { at: at(120) } }]);
    given(wrongPasswords)
      .when(login({ kind: 'totp', step: 101 }, { challengeId: 'c1', tokenHash: 'login-c1', at: at(120) }))
      .then([
        { type: 'TotpCodeAccepted', data: { time_step: 101, at: at(120) } },
        { type: 'LoginChallengeCompleted', data: { challenge_id: 'c1', method: 'totp', at: at(120) } },
      ]);
  });

  it('lets attempts through again once the window has passed', () => {
    const later = [...tenFailures, challengeIssued('c4', 100 + ATTEMPT_WINDOW_SECONDS)];
    given(later)
      .when(
        login(
          { kind: 'totp', step: 101 },
          { challengeId: 'c4', tokenHash: 'login-c4', at: at(100 + ATTEMPT_WINDOW_SECONDS + 1) },
        ),
      )
      .then([
        { type: 'TotpCodeAccepted', data: { time_step: 101, at: at(100 + ATTEMPT_WINDOW_SECONDS + 1) } },
        {
          type: 'LoginChallengeCompleted',
          data: { challenge_id: 'c4', method: 'totp', at: at(100 + ATTEMPT_WINDOW_SECONDS + 1) },
        },
      ]);
  });

  it('counts wrong setup codes with login codes, not wrong passwords', () => {
    const codes = (n: number, kind: 'setup_code' | 'login_code'): TwoFactorEvent[] =>
      Array.from({ length: n }, (_, i) => ({
        type: 'TwoFactorAttemptFailed',
        data: { kind, challenge_id: null, at: at(i) },
      }));
    given([setupStarted(), ...codes(5, 'setup_code'), ...codes(5, 'login_code')])
      .when(verify({ at: at(20) }))
      .thenFails(429, 'too_many_attempts');
    const passwords: TwoFactorEvent[] = Array.from({ length: 10 }, (_, i) => ({
      type: 'TwoFactorAttemptFailed',
      data: { kind: 'password', challenge_id: null, at: at(i) },
    }));
    expect(() =>
      twoFactorDecider.decide(verify({ at: at(20) }), given([setupStarted(), ...passwords]).state),
    ).not.toThrow();
  });

  describe('confirming an operation with a TOTP code (account deletion, decision 0090)', () => {
    const confirm = (step: number | null, seconds = 40): TwoFactorCommand => ({
      type: 'ConfirmCode',
      totpStep: step,
      at: at(seconds),
    });

    it('accepts a code of a step not used before', () => {
      given(enabledWith(100))
        .when(confirm(101))
        .then([{ type: 'TotpCodeAccepted', data: { time_step: 101, at: at(40) } }]);
    });

    it('refuses a step already used (a replayed code) and a wrong code, recording the attempt', () => {
      const failed = given(enabledWith(100)).when(confirm(100)).thenFailedAttempt(400, 'invalid_code');
      expect(failed).toEqual([
        { type: 'TwoFactorAttemptFailed', data: { kind: 'confirm_code', challenge_id: null, at: at(40) } },
      ]);
      given(enabledWith(100)).when(confirm(null)).thenFailedAttempt(400, 'invalid_code');
    });

    it('answers 409 when 2FA is off', () => {
      given([]).when(confirm(101)).thenFails(409, 'not_enabled');
    });
  });
});
