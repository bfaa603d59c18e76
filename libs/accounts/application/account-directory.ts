import { Inject, Injectable } from '@nestjs/common';
import { EventStreams } from '../../eventstore/event-streams';
import { EventMetadata, EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { ReservationKind, Reservations } from '../../eventstore/reservations';
import { accountDecider, AccountState } from '../domain/account.decider';
import { accountStream, emailStream, usernameStream } from '../domain/account.events';

/** Usernames and emails: claims name the account, whose stream proves the claim was followed through. */
const NAME: ReservationKind<{ account_id: number }> = {
  reserved: 'NameReserved',
  released: 'NameReleased',
  ownerStream: (d) => accountStream(d.account_id),
};

const nameStream = (kind: 'username' | 'email', name: string) =>
  kind === 'username' ? usernameStream(name) : emailStream(name);

/**
 * Write-side lookups and uniqueness: usernames and emails are claimed through
 * reservation streams, so two registrations can never both win, whatever the read models say.
 */
@Injectable()
export class AccountDirectory {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly streams: EventStreams,
    private readonly reservations: Reservations,
  ) {}

  nextAccountId(): Promise<number> {
    return this.reservations.nextId('account');
  }

  claim(kind: 'username' | 'email', name: string, accountId: number, metadata: EventMetadata): Promise<boolean> {
    return this.reservations.claim(NAME, nameStream(kind, name), { account_id: accountId }, metadata);
  }

  release(kind: 'username' | 'email', name: string, metadata: EventMetadata): Promise<void> {
    return this.reservations.release(NAME, nameStream(kind, name), {}, metadata);
  }

  /** Frees a name the account still holds (a deleted account's, decision 0090); idempotent. */
  releaseHeld(kind: 'username' | 'email', name: string, accountId: number, metadata: EventMetadata): Promise<boolean> {
    return this.reservations.releaseIfHeld(NAME, nameStream(kind, name), (d) => d.account_id === accountId, metadata);
  }

  /** The account id a username or email belongs to, from the reservation streams. */
  async resolve(login: string): Promise<number | null> {
    const holder = await this.reservations.holder(NAME, nameStream(login.includes('@') ? 'email' : 'username', login));
    return holder?.account_id ?? null;
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
