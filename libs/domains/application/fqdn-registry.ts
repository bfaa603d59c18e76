import { Injectable } from '@nestjs/common';
import { EventMetadata } from '../../eventstore/event-store.port';
import { ReservationKind, Reservations } from '../../eventstore/reservations';
import { domainStream, fqdnStream } from '../domain/domain.events';

export interface FqdnOwner {
  domainId: number;
  accountId: number;
}

interface FqdnClaim {
  domain_id: number;
  account_id: number;
}

const FQDN: ReservationKind<FqdnClaim> = {
  reserved: 'FqdnReserved',
  released: 'FqdnReleased',
  ownerStream: (d) => domainStream(d.domain_id),
};

/**
 * Write-side uniqueness of host names (`fqdn-<name>` reservation streams), so two accounts
 * can never both create the same host, whatever the read models say. It also answers
 * "which domain is this fqdn" from the event store, for commands.
 */
@Injectable()
export class FqdnRegistry {
  constructor(private readonly reservations: Reservations) {}

  nextDomainId(): Promise<number> {
    return this.reservations.nextId('domain');
  }

  claim(fqdn: string, owner: FqdnOwner, metadata: EventMetadata): Promise<boolean> {
    return this.reservations.claim(
      FQDN,
      fqdnStream(fqdn),
      { domain_id: owner.domainId, account_id: owner.accountId },
      metadata,
    );
  }

  release(fqdn: string, domainId: number, metadata: EventMetadata): Promise<void> {
    return this.reservations.release(FQDN, fqdnStream(fqdn), { domain_id: domainId }, metadata);
  }

  /** The domain currently holding `fqdn`, or null. The domain stream has the final word on existence. */
  async lookup(fqdn: string): Promise<FqdnOwner | null> {
    const claim = await this.reservations.holder(FQDN, fqdnStream(fqdn));
    return claim ? { domainId: claim.domain_id, accountId: claim.account_id } : null;
  }
}
