import { Inject, Injectable } from '@nestjs/common';
import { EventStreams } from '../../eventstore/event-streams';
import { EventMetadata, EVENT_STORE, EventStore, WrongExpectedVersionError } from '../../eventstore/event-store.port';
import { CLOCK, Clock } from '../../shared/clock';
import { accountDecider, AccountState } from '../domain/account.decider';
import { accountStream, emailStream, usernameStream } from '../domain/account.events';

/** A reservation whose account was never written (crash mid-registration) is reclaimable after this. */
const ORPHAN_AFTER_MS = 60_000;

/**
 * Write-side lookups and uniqueness: usernames and emails are claimed through
 * reservation streams appended with NO_STREAM, so two registrations can never both
 * win, whatever the read models say.
 */
@Injectable()
export class AccountDirectory {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async nextAccountId(): Promise<number> {
    // The sequence stream's revision is unique per append, so it doubles as an id allocator.
    const result = await this.streams.append('sequence-account', [{ type: 'IdAllocated', data: {} }], 'any', {
      actor: 'system',
    });
    return result.nextExpectedRevision + 1;
  }

  async claim(kind: 'username' | 'email', name: string, accountId: number, metadata: EventMetadata): Promise<boolean> {
    const stream = kind === 'username' ? usernameStream(name) : emailStream(name);
    const events = await this.store.readStream(stream);
    const reserved = { type: 'NameReserved', data: { account_id: accountId } };
    if (events.length === 0) return this.streams.reserve(stream, reserved, metadata);
    const last = events[events.length - 1];
    const reclaimable =
      last.type === 'NameReleased' ||
      (this.clock.now().getTime() - last.created.getTime() > ORPHAN_AFTER_MS &&
        (await this.store.readStream(accountStream(last.data.account_id), { maxCount: 1 })).length === 0);
    if (!reclaimable) return false;
    try {
      await this.streams.append(stream, [reserved], last.revision, metadata);
      return true;
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) return false;
      throw e;
    }
  }

  async release(kind: 'username' | 'email', name: string, metadata: EventMetadata): Promise<void> {
    const stream = kind === 'username' ? usernameStream(name) : emailStream(name);
    await this.streams.append(stream, [{ type: 'NameReleased', data: {} }], 'stream_exists', metadata);
  }

  /** The account id a username or email belongs to, from the reservation streams. */
  async resolve(login: string): Promise<number | null> {
    const stream = login.includes('@') ? emailStream(login) : usernameStream(login);
    const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (!last || last.type !== 'NameReserved') return null;
    return last.data.account_id as number;
  }

  async load(accountId: number): Promise<{ state: AccountState; revision: number }> {
    return this.streams.loadState(accountStream(accountId), accountDecider);
  }

  /** Whether 2FA is on, from the two-factor stream (write-side truth, not a read model). */
  async twoFactorEnabled(accountId: number): Promise<boolean> {
    const events = await this.store.readStream(`twofactor-${accountId}`);
    let enabled = false;
    for (const e of events) {
      if (e.type === 'TwoFactorEnabled') enabled = true;
      if (e.type === 'TwoFactorDisabled') enabled = false;
    }
    return enabled;
  }
}
