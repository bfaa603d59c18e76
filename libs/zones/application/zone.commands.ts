import { RRsetInput } from '../domain/rrsets';
import { ManagedTxt } from '../domain/zone.decider';
import { DnsUpdate, UpdatePermission } from '../domain/dns-update';

export interface ZoneCaller {
  accountId: number;
  actor: string;
  sourceIp: string;
}

export class ImportZone {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
    readonly zoneFile: string | undefined,
  ) {}
}

export class UpsertZoneRecords {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
    readonly rrsets: RRsetInput[],
  ) {}
}

export class VerifyZone {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
  ) {}
}

export class DeleteZone {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
  ) {}
}

/**
 * Publishes TXT data another context manages (email authentication) as zone record
 * events, so the DNS server serves it like any other record.
 */
export class PublishManagedTxt {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
    readonly changes: ManagedTxt[],
    readonly ttl = 3600,
    /** Only decide (size and quota checks), append nothing: lets the caller refuse a change before storing it. */
    readonly dryRun = false,
  ) {}
}

/** An RFC 2136 UPDATE the DNS role read and authorised (TSIG key covering the zone); answers the RCODE. */
export class ApplyDnsUpdate {
  constructor(
    readonly request: { zone: string; update: DnsUpdate; allow: UpdatePermission[]; keyName: string; client: string },
  ) {}
}
