/**
 * RRSIG and NSEC rdata (RFC 4034 §3, §4, §6): the canonical form of an RRset and its
 * signature by each active key, and the NSEC type bitmap. Names come in as lowercase
 * uncompressed wire bytes (the zone index keeps them so), which is already canonical.
 */
import type { Signer } from './keys';

export interface SigningKey {
  tag: number;
  algorithm: number;
  sign: Signer;
}

/** Signature validity in seconds since the epoch (RFC 4034 §3.1.5, serial arithmetic aside). */
export interface SignatureWindow {
  inception: number;
  expiration: number;
}

const TYPE_RRSIG = 46;
const TYPE_NSEC = 47;
const CLASS_IN = 1;

/** Labels of an owner name for the RRSIG labels field: the root and a leading "*" do not count. */
export function labelCount(owner: Buffer): number {
  let count = 0;
  for (let at = 0; owner[at] !== 0; at += owner[at] + 1) count++;
  return owner[0] === 1 && owner[1] === 0x2a ? count - 1 : count;
}

/** One RRSIG rdata per key over the RRset (owner, type, original TTL, rdatas in any order). */
export function signRRset(
  signer: Buffer,
  keys: SigningKey[],
  window: SignatureWindow,
  owner: Buffer,
  type: number,
  ttl: number,
  rdatas: Buffer[],
): Buffer[] {
  const sorted = [...rdatas].sort(Buffer.compare).filter((r, i, all) => i === 0 || !r.equals(all[i - 1]));
  const records: Buffer[] = [];
  for (const rdata of sorted) {
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(type, 0);
    fixed.writeUInt16BE(CLASS_IN, 2);
    fixed.writeUInt32BE(ttl, 4);
    fixed.writeUInt16BE(rdata.length, 8);
    records.push(owner, fixed, rdata);
  }
  return keys.map((key) => {
    const head = Buffer.alloc(18);
    head.writeUInt16BE(type, 0);
    head[2] = key.algorithm;
    head[3] = labelCount(owner);
    head.writeUInt32BE(ttl, 4);
    head.writeUInt32BE(window.expiration >>> 0, 8);
    head.writeUInt32BE(window.inception >>> 0, 12);
    head.writeUInt16BE(key.tag, 16);
    const unsigned = Buffer.concat([head, signer]);
    return Buffer.concat([unsigned, key.sign(Buffer.concat([unsigned, ...records]))]);
  });
}

/** NSEC rdata: the next owner name and the types present (NSEC and RRSIG included by the caller). */
export function nsecRdata(next: Buffer, types: Iterable<number>): Buffer {
  return Buffer.concat([next, typeBitmap(types)]);
}

/** RFC 4034 §4.1.2: window blocks of up to 32 bytes, each only as long as its highest type needs. */
export function typeBitmap(types: Iterable<number>): Buffer {
  const windows = new Map<number, number[]>();
  for (const t of types) {
    const w = t >> 8;
    const bits = windows.get(w) ?? [];
    bits.push(t & 0xff);
    windows.set(w, bits);
  }
  const parts: Buffer[] = [];
  for (const w of [...windows.keys()].sort((a, b) => a - b)) {
    const bits = windows.get(w)!;
    const length = (Math.max(...bits) >> 3) + 1;
    const block = Buffer.alloc(2 + length);
    block[0] = w;
    block[1] = length;
    for (const b of bits) block[2 + (b >> 3)] |= 0x80 >> (b & 7);
    parts.push(block);
  }
  return Buffer.concat(parts);
}

export const RRSIG_TYPE = TYPE_RRSIG;
export const NSEC_TYPE = TYPE_NSEC;
