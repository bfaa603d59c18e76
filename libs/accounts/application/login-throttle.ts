import { Inject, Injectable } from '@nestjs/common';
import { COORDINATION, Coordination } from '../../consumers/coordination';
import { CLOCK, Clock } from '../../shared/clock';
import { tooManyRequests } from '../../shared/errors';
import {
  abandoned,
  admit,
  Admission,
  expiry,
  failed,
  isEmpty,
  LOCK_MS,
  LockoutState,
  succeeded,
} from '../domain/login-lockout';

/** The counter an attempt counts against: its account, or the name when it matches none. */
export type LoginSubject = { accountId: number } | { unknownName: string };

/**
 * An unknown name is keyed exactly as the directory looked it up (lowercased, nothing
 * else): were two spellings that miss the directory to share a counter while they would
 * name two different counters for a real account (an account and a miss), the lock would
 * tell which names exist.
 */
const keyOf = (subject: LoginSubject) =>
  'accountId' in subject ? `login:account:${subject.accountId}` : `login:name:${subject.unknownName.toLowerCase()}`;

const minutes = (ms: number) => Math.max(1, Math.ceil(ms / 60_000));

/** An admitted attempt: report its outcome exactly once. */
export interface LoginAttempt {
  failed(): Promise<void>;
  succeeded(): Promise<void>;
  /** Ended without an answer about the password (an error): stops counting. */
  abandon(): Promise<void>;
}

/**
 * Password-login lockout (contract §2, rule in domain/login-lockout.ts): one counter per
 * account, whichever of its names the attempt used, and one per name that matches no
 * account, so the answers are the same whether a user exists or not. Every step is one
 * atomic change of a shared record in the coordination store (DATA_DIR/coordination.db
 * or MongoDB), so several API processes share each counter.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @Inject(COORDINATION) private readonly coordination: Coordination,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private change<R>(
    key: string,
    step: (state: LockoutState | null, now: number) => { state: LockoutState; result: R },
  ): Promise<R> {
    const now = this.clock.now().getTime();
    return this.coordination.updateRecord<LockoutState, R>(key, now, (stored) => {
      const { state, result } = step(stored, now);
      return { next: isEmpty(state) ? null : state, expiresAt: expiry(state), result };
    });
  }

  /** Counts the attempt before its password is checked; 429 `too_many_attempts` when it may not go on. */
  async begin(subject: LoginSubject): Promise<LoginAttempt> {
    const key = keyOf(subject);
    const admission = await this.change<Admission>(key, (stored, now) => {
      const a = admit(stored, now);
      return { state: a.state, result: a };
    });
    if (!admission.admitted) {
      const seconds = admission.retryAfterMs / 1000;
      throw admission.reason === 'locked'
        ? tooManyRequests(
            'too_many_attempts',
            `Too many failed logins: password login is locked for ${minutes(LOCK_MS)} minutes; try again in ` +
              `${minutes(admission.retryAfterMs)} minute(s)`,
            seconds,
          )
        : tooManyRequests(
            'too_many_attempts',
            `Too many login attempts at once; try again in ${Math.max(1, Math.ceil(seconds))} second(s)`,
            seconds,
          );
    }
    const ticket = admission.ticket;
    let settled = false;
    const settle = (outcome: (state: LockoutState | null, ticket: number, now: number) => LockoutState) => async () => {
      if (settled) return;
      settled = true;
      await this.change(key, (stored, now) => ({ state: outcome(stored, ticket, now), result: undefined }));
    };
    return { failed: settle(failed), succeeded: settle(succeeded), abandon: settle(abandoned) };
  }
}
