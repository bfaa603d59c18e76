import {
  admit,
  expiry,
  failed,
  FAILURE_WINDOW_MS,
  LOCK_MS,
  LockoutState,
  PENDING_TTL_MS,
  succeeded,
} from './login-lockout';

describe('login lockout rule', () => {
  const admitted = (state: LockoutState | null, now: number) => {
    const a = admit(state, now);
    if (!a.admitted) throw new Error(`refused: ${a.reason}`);
    return a;
  };

  it('admits no more attempts than the failures left, while they are being checked', () => {
    let state: LockoutState | null = null;
    const tickets: number[] = [];
    for (let i = 0; i < 5; i++) {
      const a = admitted(state, 1000);
      state = a.state;
      tickets.push(a.ticket);
    }
    expect(admit(state, 1000)).toMatchObject({ admitted: false, reason: 'busy', retryAfterMs: PENDING_TTL_MS });
    for (const ticket of tickets) state = failed(state, ticket, 2000);
    expect(state).toEqual({ failures: [], pending: [], lockedUntil: 2000 + LOCK_MS });
    expect(admit(state, 3000)).toMatchObject({ admitted: false, reason: 'locked', retryAfterMs: LOCK_MS - 1000 });
    expect(admit(state, 2000 + LOCK_MS).admitted).toBe(true);
  });

  it('a success clears the failures; failures leave the window; an attempt never settled stops counting', () => {
    let state: LockoutState = { failures: [0, 1, 2, 3], pending: [], lockedUntil: 0 };
    const a = admitted(state, 10);
    expect(succeeded(a.state, a.ticket, 20)).toEqual({ failures: [], pending: [], lockedUntil: 0 });
    expect(admit(state, FAILURE_WINDOW_MS + 2)).toMatchObject({ admitted: true, state: { failures: [3] } });
    state = admitted(state, 10).state;
    expect(admit(state, 11).admitted).toBe(false);
    expect(admit(state, 10 + PENDING_TTL_MS).admitted).toBe(true);
    expect(expiry(state)).toBe(3 + FAILURE_WINDOW_MS);
    // Five failures without a lock (not made by these rules) still refuse, with a finite wait.
    expect(admit({ failures: [0, 1, 2, 3, 4], pending: [], lockedUntil: 0 }, 10)).toMatchObject({
      admitted: false,
      retryAfterMs: FAILURE_WINDOW_MS - 10,
    });
  });
});
