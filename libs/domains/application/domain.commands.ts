import { RecordType } from '../domain/addresses';
import { FamilyChange } from '../domain/domain.decider';

/** Who asked, from where: every event carries it (actor, account, source IP). */
export interface Caller {
  accountId: number;
  actor: string;
  sourceIp: string;
  /** The request's id, when the route runs without the async-context origin (decision 0109). */
  correlationId?: string;
}

export class CreateDomain {
  constructor(
    readonly caller: Caller,
    readonly fqdn: string,
    readonly recordType: RecordType,
    readonly recordIp: string,
  ) {}
}

/** What a management edit asks (decision 0091): each field left out is kept; an address family sent as null is removed. */
export interface HostEdit {
  recordIp?: string;
  ipv4?: string | null;
  ipv6?: string | null;
  ttl?: number;
}

export class EditDomain {
  constructor(
    readonly caller: Caller,
    readonly fqdn: string,
    readonly edit: HostEdit,
  ) {}
}

export class DeleteDomain {
  constructor(
    readonly caller: Caller,
    readonly fqdn: string,
  ) {}
}

/** One host of a DDNS request; answered `good`/`nochg` or refused (`abuse`, 404 → `nohost`). */
export class DdnsUpdateHost {
  constructor(
    readonly caller: Caller,
    readonly fqdn: string,
    readonly ipv4: FamilyChange,
    readonly ipv6: FamilyChange,
  ) {}
}
