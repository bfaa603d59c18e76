import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { READ_STORE, ReadStore } from '../../readstore/read-store.port';
import { CLOCK, Clock } from '../../shared/clock';
import { tooManyRequests } from '../../shared/errors';

const WINDOW_MS = 15 * 60_000;
const MAX_FAILURES = 5;
const LOCK_MS = 15 * 60_000;

interface ThrottleDoc {
  _id: string;
  failures: string[];
  locked_until: string | null;
  /** When the document stops mattering (its last failure left the window, its lock ended): the TTL field. */
  expires_at: Date;
}

/** Documents of names nobody tries again (typos, guessed names) leave on their own; see libs/retention. */
export const LOGIN_THROTTLE_COLLECTION = 'login_throttle';
export const LOGIN_THROTTLE_TTL_FIELD = 'expires_at';

/**
 * Password-login lockout per username (contract §2): 5 failures within 15 minutes lock
 * password login for that name for 15 minutes, whether or not the name exists, so the
 * lock itself tells an attacker nothing. Kept in the read store (shared by API replicas),
 * outside any projection.
 */
@Injectable()
export class LoginThrottle implements OnModuleInit {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private get docs() {
    return this.readStore.collection<ThrottleDoc>(LOGIN_THROTTLE_COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    await this.docs.createIndex({ [LOGIN_THROTTLE_TTL_FIELD]: 1 }, { expireAfterSeconds: 0 });
  }

  private key(login: string) {
    return `login:${login.trim().toLowerCase()}`;
  }

  async assertNotLocked(login: string): Promise<void> {
    const doc = await this.docs.findOne({ _id: this.key(login) });
    const now = this.clock.now().getTime();
    if (doc?.locked_until && Date.parse(doc.locked_until) > now) {
      throw tooManyRequests('too_many_attempts', 'Too many failed logins; try again later', (Date.parse(doc.locked_until) - now) / 1000);
    }
  }

  async recordFailure(login: string): Promise<void> {
    const now = this.clock.now();
    const id = this.key(login);
    const doc = await this.docs.findOne({ _id: id });
    const recent = (doc?.failures ?? []).filter((t) => now.getTime() - Date.parse(t) < WINDOW_MS);
    recent.push(now.toISOString());
    const lockedUntil = recent.length >= MAX_FAILURES ? new Date(now.getTime() + LOCK_MS).toISOString() : null;
    await this.docs.updateOne(
      { _id: id },
      {
        $set: {
          failures: lockedUntil ? [] : recent,
          locked_until: lockedUntil,
          expires_at: new Date(now.getTime() + (lockedUntil ? LOCK_MS : WINDOW_MS)),
        },
      },
      { upsert: true },
    );
  }

  async reset(login: string): Promise<void> {
    await this.docs.deleteOne({ _id: this.key(login) });
  }
}
