/**
 * DNSSEC key material (RFC 4034, RFC 6605, RFC 8080) on node's own crypto: key
 * generation, the DNSKEY and DS rdata, key tags, and a signing function per key.
 * Private keys travel only as PKCS#8 DER sealed with the service's SecretBox.
 */
import { createHash, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { nameToWire } from '../dns-server/names';

export const ALGORITHMS = [13, 15] as const;
export type Algorithm = (typeof ALGORITHMS)[number];
export const isAlgorithm = (n: unknown): n is Algorithm => (ALGORITHMS as readonly unknown[]).includes(n);
export const ALGORITHM_NAMES: Record<Algorithm, string> = { 13: 'ECDSAP256SHA256', 15: 'ED25519' };

/** SecretBox purpose of sealed DNSSEC private keys. */
export const KEY_SEAL_PURPOSE = 'dnssec-private-key';
/** Secure-entry-point flag set: a CSK is published as 257 (ZONE + SEP). */
export const CSK_FLAGS = 257;
const DNSSEC_PROTOCOL = 3;
const DIGEST_SHA256 = 2;

export interface GeneratedKey {
  algorithm: Algorithm;
  /** The DNSKEY public key field. */
  publicKey: Buffer;
  /** PKCS#8 DER: seal it before it goes anywhere. */
  privateKeyDer: Buffer;
}

export function generateKey(algorithm: Algorithm): GeneratedKey {
  const pair =
    algorithm === 13 ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }) : generateKeyPairSync('ed25519');
  const jwk = pair.publicKey.export({ format: 'jwk' });
  // P-256: x || y (RFC 6605 §4); Ed25519: the 32-byte public key (RFC 8080 §3).
  const publicKey =
    algorithm === 13
      ? Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')])
      : Buffer.from(jwk.x!, 'base64url');
  return { algorithm, publicKey, privateKeyDer: pair.privateKey.export({ format: 'der', type: 'pkcs8' }) };
}

export function dnskeyRdata(flags: number, algorithm: number, publicKey: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(flags, 0);
  head[2] = DNSSEC_PROTOCOL;
  head[3] = algorithm;
  return Buffer.concat([head, publicKey]);
}

/** RFC 4034 Appendix B. */
export function keyTag(rdata: Buffer): number {
  let acc = 0;
  for (let i = 0; i < rdata.length; i++) acc += i & 1 ? rdata[i] : rdata[i] << 8;
  acc += (acc >> 16) & 0xffff;
  return acc & 0xffff;
}

/** DS (digest type 2, SHA-256) of a DNSKEY at `zone`; the same rdata serves as CDS. */
export function dsRdata(zone: string, dnskey: Buffer): Buffer {
  const digest = createHash('sha256').update(nameToWire(zone)).update(dnskey).digest();
  const head = Buffer.alloc(4);
  head.writeUInt16BE(keyTag(dnskey), 0);
  head[2] = dnskey[3];
  head[3] = DIGEST_SHA256;
  return Buffer.concat([head, digest]);
}

/** The delete forms (RFC 8078 §4): CDS "0 0 0 00", CDNSKEY "0 3 0 AA==". */
export const CDS_DELETE = Buffer.from([0, 0, 0, 0, 0]);
export const CDNSKEY_DELETE = Buffer.from([0, 0, 3, 0, 0]);

export const dsText = (zone: string, ttl: number, ds: Buffer): string =>
  `${zone}. ${ttl} IN DS ${ds.readUInt16BE(0)} ${ds[2]} ${ds[3]} ${ds.subarray(4).toString('hex').toUpperCase()}`;
export const dnskeyText = (zone: string, ttl: number, rdata: Buffer): string =>
  `${zone}. ${ttl} IN DNSKEY ${rdata.readUInt16BE(0)} ${rdata[2]} ${rdata[3]} ${rdata.subarray(4).toString('base64')}`;

export type Signer = (data: Buffer) => Buffer;

/** Signs with a PKCS#8 key: ECDSA as r||s (RFC 6605 §4), Ed25519 as is. */
export function signerFor(algorithm: Algorithm, privateKeyDer: Buffer): Signer {
  const key: KeyObject = createPrivateKey({ key: privateKeyDer, format: 'der', type: 'pkcs8' });
  return algorithm === 13
    ? (data) => sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' })
    : (data) => sign(null, data, key);
}
