import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '../shared/clock';
import { EventMetadata, EVENT_STORE, EventStore, WrongExpectedVersionError } from './event-store.port';
import { EventStreams } from './event-streams';

/** A claim whose owner stream never appeared (a crash between the two appends) is reclaimable after this. */
const ORPHAN_AFTER_MS = 60_000;

/** One kind of unique name: its event types, and the stream that proves a claim was followed through. */
export interface ReservationKind<D extends object> {
  reserved: string;
  released: string;
  ownerStream(data: D): string;
}

/**
 * Write-side uniqueness (usernames, emails, fqdns, zone names): a name is claimed by
 * appending to its reservation stream with NO_STREAM, or, after a release or an orphaned
 * claim, at the revision that was read. Two claimants can never both win, whatever the
 * read models say. Also allocates integer ids from `sequence-<category>` streams.
 */
@Injectable()
export class Reservations {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Each append to the sequence stream gets a unique revision: id = revision + 1. */
  async nextId(category: string): Promise<number> {
    const result = await this.streams.append(`sequence-${category}`, [{ type: 'IdAllocated', data: {} }], 'any', {
      actor: 'system',
    });
    return result.nextExpectedRevision + 1;
  }

  async claim<D extends object>(
    kind: ReservationKind<D>,
    stream: string,
    data: D,
    metadata: EventMetadata,
  ): Promise<boolean> {
    const reserved = { type: kind.reserved, data };
    const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (!last) return this.streams.reserve(stream, reserved, metadata);
    const reclaimable =
      last.type === kind.released ||
      (this.clock.now().getTime() - last.created.getTime() > ORPHAN_AFTER_MS &&
        (await this.store.readStream(kind.ownerStream(last.data as D), { maxCount: 1 })).length === 0);
    if (!reclaimable) return false;
    try {
      await this.streams.append(stream, [reserved], last.revision, metadata);
      return true;
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) return false;
      throw e;
    }
  }

  async release<D extends object>(
    kind: ReservationKind<D>,
    stream: string,
    data: Partial<D>,
    metadata: EventMetadata,
  ): Promise<void> {
    await this.streams.append(stream, [{ type: kind.released, data }], 'stream_exists', metadata);
  }

  /**
   * Releases the claim only while `held(data)` says it is the caller's own: run again after a
   * crash (the account-deletion process), it must not free a name someone else has claimed since.
   */
  async releaseIfHeld<D extends object>(
    kind: ReservationKind<D>,
    stream: string,
    held: (data: D) => boolean,
    metadata: EventMetadata,
  ): Promise<boolean> {
    for (;;) {
      const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
      if (!last || last.type !== kind.reserved || !held(last.data as D)) return false;
      try {
        await this.streams.append(stream, [{ type: kind.released, data: {} }], last.revision, metadata);
        return true;
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError)) throw e;
      }
    }
  }

  /** The data of the live claim on a name, or null when it is free. */
  async holder<D extends object>(kind: ReservationKind<D>, stream: string): Promise<D | null> {
    const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return last && last.type === kind.reserved ? (last.data as D) : null;
  }
}
