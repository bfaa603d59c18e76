/**
 * The password-login lockout rule (contract §2), pure: what one counter (an account, or a
 * name that matches no account) holds, whether an attempt may go on, and what its outcome
 * changes. The caller stores the state atomically (libs/consumers/coordination.ts,
 * `updateRecord`), so every API process sharing the store sees the same counter.
 *
 * An attempt is counted when it is admitted, before the password is checked: the
 * attempts still being checked (`pending`) count against the limit with the failures, so
 * however many arrive together at most MAX_FAILURES passwords are ever checked per window.
 */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60_000;
export const LOCK_MS = 15 * 60_000;
/**
 * An admitted attempt that never reports its outcome (its process died) stops counting
 * after this long: a password check takes well under a second.
 */
export const PENDING_TTL_MS = 30_000;

export interface LockoutState {
  /** Times (ms) of the failures within the window, oldest first. */
  failures: number[];
  /** Deadlines (ms) of the attempts admitted and still being checked. */
  pending: number[];
  /** Until when (ms) password login is refused; 0 when not locked. */
  lockedUntil: number;
}

export type Admission =
  | { admitted: true; state: LockoutState; ticket: number }
  | { admitted: false; state: LockoutState; reason: 'locked' | 'busy'; retryAfterMs: number };

const EMPTY: LockoutState = { failures: [], pending: [], lockedUntil: 0 };

/** What still counts at `now`: failures inside the window, pending attempts before their deadline, an unexpired lock. */
export function current(state: LockoutState | null, now: number): LockoutState {
  const s = state ?? EMPTY;
  return {
    failures: s.failures.filter((t) => now - t < FAILURE_WINDOW_MS),
    pending: s.pending.filter((deadline) => deadline > now),
    lockedUntil: s.lockedUntil > now ? s.lockedUntil : 0,
  };
}

/**
 * Admits an attempt unless the counter is locked or the failures and the attempts still
 * being checked already reach the limit. The `ticket` names the admitted attempt when
 * its outcome is recorded.
 */
export function admit(stored: LockoutState | null, now: number): Admission {
  const state = current(stored, now);
  if (state.lockedUntil) return { admitted: false, state, reason: 'locked', retryAfterMs: state.lockedUntil - now };
  if (state.failures.length + state.pending.length >= MAX_FAILURES) {
    // The attempts in flight decide: either one succeeds (the counter clears) or they lock it.
    const settles = state.pending.length > 0 ? Math.min(...state.pending) : state.failures[0] + FAILURE_WINDOW_MS;
    return { admitted: false, state, reason: 'busy', retryAfterMs: settles - now };
  }
  const ticket = now + PENDING_TTL_MS;
  return { admitted: true, state: { ...state, pending: [...state.pending, ticket].sort((a, b) => a - b) }, ticket };
}

const withoutTicket = (pending: number[], ticket: number): number[] => {
  const i = pending.indexOf(ticket);
  return i < 0 ? pending : [...pending.slice(0, i), ...pending.slice(i + 1)];
};

/** A wrong password: the attempt becomes a failure; the MAX_FAILURES-th within the window locks for LOCK_MS. */
export function failed(stored: LockoutState | null, ticket: number, now: number): LockoutState {
  const state = current(stored, now);
  const failures = [...state.failures, now];
  const pending = withoutTicket(state.pending, ticket);
  if (failures.length >= MAX_FAILURES) return { failures: [], pending, lockedUntil: now + LOCK_MS };
  return { ...state, failures, pending };
}

/** The right password clears the failures (a lock cannot be running: the attempt was admitted). */
export function succeeded(stored: LockoutState | null, ticket: number, now: number): LockoutState {
  const state = current(stored, now);
  return { failures: [], pending: withoutTicket(state.pending, ticket), lockedUntil: state.lockedUntil };
}

/** An attempt that ended without an answer about the password (an error): it stops counting. */
export function abandoned(stored: LockoutState | null, ticket: number, now: number): LockoutState {
  const state = current(stored, now);
  return { ...state, pending: withoutTicket(state.pending, ticket) };
}

/** When nothing of the state matters any more (null: already now): how long to keep it. */
export function expiry(state: LockoutState): number {
  return Math.max(state.lockedUntil, ...state.failures.map((t) => t + FAILURE_WINDOW_MS), ...state.pending);
}

export const isEmpty = (state: LockoutState): boolean =>
  state.failures.length === 0 && state.pending.length === 0 && state.lockedUntil === 0;
