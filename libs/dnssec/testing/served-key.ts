import { CSK_FLAGS, dnskeyRdata, keyTag, signerFor, type GeneratedKey } from '../keys';
import type { ServedKey } from '../zone-signing';

/** Specs and benches: `key` as an active combined signing key (published in DNSKEY, signing). */
export const servedKey = (key: GeneratedKey): ServedKey & { sign: NonNullable<ServedKey['sign']> } => ({
  tag: keyTag(dnskeyRdata(CSK_FLAGS, key.algorithm, key.publicKey)),
  algorithm: key.algorithm,
  flags: CSK_FLAGS,
  publicKey: key.publicKey,
  sign: signerFor(key.algorithm, key.privateKeyDer),
});
