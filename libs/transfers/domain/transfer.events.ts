import { DomainEvent } from '../../shared/decider';

/** As libs/dns-transfer/tsig.ts names them (the domain does not import protocol code). */
export type TsigAlgorithm = 'hmac-sha256' | 'hmac-sha512';

export type TsigKeyPurpose = 'transfer' | 'update';

/** An update key's limit (contract §18): `name` relative to the zone, `*.x` for names below x; no types = every type. */
export interface UpdateAllow {
  name: string;
  types: string[];
}

export interface KeyZone {
  zone_id: string;
  name: string;
}

export type TsigKeyCreated = DomainEvent<
  'TsigKeyCreated',
  {
    key_id: string;
    account_id: number;
    name: string;
    algorithm: TsigAlgorithm;
    purpose: TsigKeyPurpose;
    /** By zone id: a zone deleted and imported again is not covered any more. */
    zones: KeyZone[];
    allow: UpdateAllow[];
    /** The secret sealed with the service secret (SecretBox, purpose TSIG_SECRET_PURPOSE); shown once at creation. */
    secret_sealed: string;
    created_at: string;
  }
>;
export type TsigKeyDeleted = DomainEvent<
  'TsigKeyDeleted',
  { key_id: string; account_id: number; name: string; at: string }
>;
export type TsigKeyEvent = TsigKeyCreated | TsigKeyDeleted;

export type SecondaryAdded = DomainEvent<
  'SecondaryAdded',
  {
    secondary_id: string;
    zone_id: string;
    zone_name: string;
    account_id: number;
    address: string;
    port: number;
    tsig_key: string;
    at: string;
  }
>;
export type SecondaryRemoved = DomainEvent<
  'SecondaryRemoved',
  { secondary_id: string; zone_id: string; zone_name: string; account_id: number; at: string }
>;
export type SecondaryEvent = SecondaryAdded | SecondaryRemoved;

export const TSIG_KEY_EVENT_TYPES: readonly TsigKeyEvent['type'][] = ['TsigKeyCreated', 'TsigKeyDeleted'];
export const SECONDARY_EVENT_TYPES: readonly SecondaryEvent['type'][] = ['SecondaryAdded', 'SecondaryRemoved'];

export const TSIG_SECRET_PURPOSE = 'tsig-key';
/** All TSIG keys of an account: the plan limit is decided on one consistent state. */
export const tsigKeyringStream = (accountId: number) => `tsigkeys-${accountId}`;
/** TSIG key names are unique in the service (a secondary finds the key by name alone). */
export const tsigKeyNameStream = (name: string) => `tsigkeyname-${name}`;
export const secondariesStream = (zoneId: string) => `secondaries-${zoneId}`;
