import { Inject, Injectable } from '@nestjs/common';
import { EventMetadata, EVENT_STORE, EventStore, WrongExpectedVersionError } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { CLOCK, Clock } from '../../shared/clock';
import { domainStream, fqdnStream } from '../domain/domain.events';

/** A claim whose domain stream never appeared (crash between the two appends) is reclaimable after this. */
const ORPHAN_AFTER_MS = 60_000;

export interface FqdnOwner {
  domainId: number;
  accountId: number;
}

/**
 * Write-side uniqueness of host names: an fqdn is claimed by appending to `fqdn-<name>`
 * with NO_STREAM (or after a release, at the revision that was read), so two accounts can
 * never both create the same host, whatever the read models say. It also answers
 * "which domain is this fqdn" from the event store, for commands.
 */
@Injectable()
export class FqdnRegistry {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly streams: EventStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async nextDomainId(): Promise<number> {
    // Same allocator as accounts: each append to the sequence stream gets a unique revision.
    const result = await this.streams.append('sequence-domain', [{ type: 'IdAllocated', data: {} }], 'any', { actor: 'system' });
    return result.nextExpectedRevision + 1;
  }

  async claim(fqdn: string, owner: FqdnOwner, metadata: EventMetadata): Promise<boolean> {
    const stream = fqdnStream(fqdn);
    const reserved = { type: 'FqdnReserved', data: { domain_id: owner.domainId, account_id: owner.accountId } };
    const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if (!last) return this.streams.reserve(stream, reserved, metadata);
    const reclaimable =
      last.type === 'FqdnReleased' ||
      (this.clock.now().getTime() - last.created.getTime() > ORPHAN_AFTER_MS &&
        (await this.store.readStream(domainStream(last.data.domain_id), { maxCount: 1 })).length === 0);
    if (!reclaimable) return false;
    try {
      await this.streams.append(stream, [reserved], last.revision, metadata);
      return true;
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) return false;
      throw e;
    }
  }

  async release(fqdn: string, domainId: number, metadata: EventMetadata): Promise<void> {
    await this.streams.append(fqdnStream(fqdn), [{ type: 'FqdnReleased', data: { domain_id: domainId } }], 'stream_exists', metadata);
  }

  /** The domain currently holding `fqdn`, or null. The domain stream has the final word on existence. */
  async lookup(fqdn: string): Promise<FqdnOwner | null> {
    const [last] = await this.store.readStream(fqdnStream(fqdn), { direction: 'backwards', maxCount: 1 });
    if (!last || last.type !== 'FqdnReserved') return null;
    return { domainId: last.data.domain_id as number, accountId: last.data.account_id as number };
  }
}
