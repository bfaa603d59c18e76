import { DomainEvent } from '../../shared/decider';

/** Every DNSSEC event of a zone is on this stream, for imported and dynamic-DNS zones alike. */
export const dnssecStream = (zone: string) => `dnssec-${zone}`;
export const DNSSEC_STREAM_PREFIX = 'dnssec-';

export type KeyState = 'published' | 'active' | 'retired' | 'removed';
export type KeyRole = 'csk' | 'ksk' | 'zsk';

interface OfZone {
  zone: string;
  at: string;
}

/**
 * Signing turned on for one incarnation of a zone (`zone_id`: the imported zone's id, or
 * `ddns:<name>` for a dynamic-DNS zone). A zone deleted and imported again starts unsigned.
 */
export type DnssecEnabled = DomainEvent<
  'DnssecEnabled',
  OfZone & { zone_id: string; account_id: number | null; algorithm: number }
>;
/**
 * A new key. `private_key_sealed` is the PKCS#8 key sealed with the SecretBox (AES-256-GCM
 * under a key derived from SECRET_KEY): the plain key is never in an event, a log or the
 * audit log.
 */
export type DnssecKeyGenerated = DomainEvent<
  'DnssecKeyGenerated',
  OfZone & {
    key_tag: number;
    algorithm: number;
    flags: number;
    role: KeyRole;
    public_key: string;
    private_key_sealed: string;
  }
>;
export type DnssecKeyPublished = DomainEvent<'DnssecKeyPublished', OfZone & { key_tag: number }>;
export type DnssecKeyActivated = DomainEvent<'DnssecKeyActivated', OfZone & { key_tag: number }>;
export type DnssecKeyRetired = DomainEvent<'DnssecKeyRetired', OfZone & { key_tag: number }>;
export type DnssecKeyRemoved = DomainEvent<'DnssecKeyRemoved', OfZone & { key_tag: number }>;
/** The validity window of every signature from now on (seconds since the epoch). */
export type DnssecSignaturesRefreshed = DomainEvent<
  'DnssecSignaturesRefreshed',
  OfZone & { inception: number; expiration: number }
>;
/** CDS/CDNSKEY published: for these keys, or the delete form (`delete: true`). */
export type DnssecCdsPublished = DomainEvent<'DnssecCdsPublished', OfZone & { key_tags: number[]; delete: boolean }>;
export type DnssecCdsWithdrawn = DomainEvent<'DnssecCdsWithdrawn', OfZone>;
/** What the parent's DS RRset was seen to name, through VERIFY_RESOLVER ([] = no DS). */
export type DnssecParentDsSeen = DomainEvent<'DnssecParentDsSeen', OfZone & { key_tags: number[] }>;
export type DnssecRolloverStarted = DomainEvent<
  'DnssecRolloverStarted',
  OfZone & { old_key_tag: number; new_key_tag: number }
>;
export type DnssecRolloverCompleted = DomainEvent<'DnssecRolloverCompleted', OfZone & { key_tag: number }>;
/** Turning off began: CDS/CDNSKEY delete published, the zone stays signed until the parent's DS is gone. */
export type DnssecUnsigningStarted = DomainEvent<'DnssecUnsigningStarted', OfZone>;
/** Unsigning undone before it completed (signing turned on again). */
export type DnssecUnsigningCancelled = DomainEvent<'DnssecUnsigningCancelled', OfZone>;
/** The zone is served unsigned; every key is gone. */
export type DnssecDisabled = DomainEvent<'DnssecDisabled', OfZone>;

export type DnssecEvent =
  | DnssecEnabled
  | DnssecKeyGenerated
  | DnssecKeyPublished
  | DnssecKeyActivated
  | DnssecKeyRetired
  | DnssecKeyRemoved
  | DnssecSignaturesRefreshed
  | DnssecCdsPublished
  | DnssecCdsWithdrawn
  | DnssecParentDsSeen
  | DnssecRolloverStarted
  | DnssecRolloverCompleted
  | DnssecUnsigningStarted
  | DnssecUnsigningCancelled
  | DnssecDisabled;

export const DNSSEC_EVENT_TYPES: readonly DnssecEvent['type'][] = [
  'DnssecEnabled',
  'DnssecKeyGenerated',
  'DnssecKeyPublished',
  'DnssecKeyActivated',
  'DnssecKeyRetired',
  'DnssecKeyRemoved',
  'DnssecSignaturesRefreshed',
  'DnssecCdsPublished',
  'DnssecCdsWithdrawn',
  'DnssecParentDsSeen',
  'DnssecRolloverStarted',
  'DnssecRolloverCompleted',
  'DnssecUnsigningStarted',
  'DnssecUnsigningCancelled',
  'DnssecDisabled',
];
