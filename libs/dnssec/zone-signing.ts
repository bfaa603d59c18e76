/**
 * Turns a zone's DNSSEC state (its keys and signature window) into the ZoneSigning the
 * DNS server's index signs with. Only the DNS role calls this: it is where sealed private
 * keys are opened, in memory, for as long as the key signs.
 */
import type { ZoneSigning } from '../dns-server/zone-signing';
import { CDNSKEY_DELETE, CDS_DELETE, dnskeyRdata, dsRdata, type Signer } from './keys';
import { nsecRdata, signRRset, type SignatureWindow, type SigningKey } from './rrsig';
import { nameToWire } from '../dns-server/names';

export interface ServedKey {
  tag: number;
  algorithm: number;
  flags: number;
  publicKey: Buffer;
  /** Present for keys that sign (active); published and retired keys only appear in DNSKEY. */
  sign: Signer | null;
}

/** What the zone asks of its parent through CDS/CDNSKEY (RFC 7344, RFC 8078). */
export type ParentSignal = { kind: 'none' } | { kind: 'delete' } | { kind: 'keys'; tags: number[] };

export function zoneSigning(
  zone: string,
  keys: ServedKey[],
  window: SignatureWindow,
  parent: ParentSignal,
  keyTtl: number,
): ZoneSigning {
  const signerName = nameToWire(zone);
  const signing: SigningKey[] = keys
    .filter((k) => k.sign)
    .map((k) => ({ tag: k.tag, algorithm: k.algorithm, sign: k.sign! }));
  const dnskey = keys.map((k) => dnskeyRdata(k.flags, k.algorithm, k.publicKey));
  const signalled =
    parent.kind === 'keys'
      ? keys.filter((k) => parent.tags.includes(k.tag)).map((k) => dnskeyRdata(k.flags, k.algorithm, k.publicKey))
      : [];
  return {
    dnskey,
    cds: parent.kind === 'delete' ? [CDS_DELETE] : signalled.map((k) => dsRdata(zone, k)),
    cdnskey: parent.kind === 'delete' ? [CDNSKEY_DELETE] : signalled,
    keyTtl,
    sign: (owner, type, ttl, rdatas) => signRRset(signerName, signing, window, owner, type, ttl, rdatas),
    nsec: (next, types) => nsecRdata(next, types),
  };
}
