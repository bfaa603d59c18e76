/**
 * TSIG (RFC 8945): HMAC-SHA256/512 signatures on DNS messages. No maintained npm library
 * does TSIG (dns-packet does not even know the record), so this is a small module of its
 * own, checked against BIND's dig/nsupdate and Knot's knsupdate in its tests.
 *
 * Signing appends the TSIG record to a finished message (ARCOUNT + 1); verifying checks the
 * last additional record of a parsed message. A multi-message answer (AXFR/IXFR) signs every
 * message: the first over the request MAC and the full TSIG variables, each next one over
 * the previous MAC, the message and the timers only (§5.3.1).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { nameToWire } from '../dns-server/names';
import { CLASS, MalformedMessage, readName, WireMessage, WireRR } from './message';

export const TSIG_TYPE = 250;
export const TSIG_ERROR = { NOERROR: 0, BADSIG: 16, BADKEY: 17, BADTIME: 18, BADTRUNC: 22 } as const;
/** The time window either way (RFC 8945 §10 recommends 300 s). */
export const FUDGE_SECONDS = 300;

export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha512'] as const;
export type TsigAlgorithm = (typeof TSIG_ALGORITHMS)[number];
const HASH: Record<TsigAlgorithm, { hash: string; size: number }> = {
  'hmac-sha256': { hash: 'sha256', size: 32 },
  'hmac-sha512': { hash: 'sha512', size: 64 },
};

export interface TsigKey {
  /** Canonical (lowercase, no trailing dot). */
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
}

/** The TSIG record of a message, read. */
export interface TsigRecord {
  /** Lowercased wire key of the key name. */
  keyKey: string;
  keyName: string;
  algorithmKey: string;
  algorithm: TsigAlgorithm | null;
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
  /** Offset of the TSIG record in the message: what precedes it is what was signed. */
  start: number;
}

const algorithmKey = (a: TsigAlgorithm) => nameToWire(a).toString('latin1');
const ALGORITHM_BY_KEY = new Map<string, TsigAlgorithm>(TSIG_ALGORITHMS.map((a) => [algorithmKey(a), a]));
const ALGORITHM_WIRE = new Map<TsigAlgorithm, Buffer>(TSIG_ALGORITHMS.map((a) => [a, nameToWire(a)]));
/** Key names in wire form, by key: a transfer signs every message with the same key. */
const keyNameWire = new WeakMap<TsigKey, Buffer>();
function keyWire(key: TsigKey): Buffer {
  let wire = keyNameWire.get(key);
  if (!wire) keyNameWire.set(key, (wire = nameToWire(key.name)));
  return wire;
}

/**
 * The TSIG record of a parsed message, or null when it has none. A TSIG anywhere but last
 * in the additional section, or malformed, throws MalformedMessage (FORMERR, §5.1).
 */
export function findTsig(msg: Buffer, m: WireMessage): TsigRecord | null {
  const all = [...m.answers, ...m.authorities, ...m.additionals];
  const at = all.findIndex((rr) => rr.type === TSIG_TYPE);
  if (at < 0) return null;
  const rr = all[at];
  if (at !== all.length - 1 || m.additionals[m.additionals.length - 1] !== rr)
    throw new MalformedMessage('TSIG is not the last record');
  return readTsig(msg, rr);
}

function readTsig(msg: Buffer, rr: WireRR): TsigRecord {
  if (rr.class !== CLASS.ANY || rr.ttl !== 0) throw new MalformedMessage('TSIG class or TTL');
  const base = rr.rdlengthAt + 2;
  const alg = readName(msg, base);
  let at = alg.end;
  const need = (n: number) => {
    if (at + n > rr.end) throw new MalformedMessage('truncated TSIG');
  };
  need(10);
  const timeSigned = msg.readUInt16BE(at) * 2 ** 32 + msg.readUInt32BE(at + 2);
  const fudge = msg.readUInt16BE(at + 6);
  const macSize = msg.readUInt16BE(at + 8);
  at += 10;
  need(macSize + 6);
  const mac = Buffer.from(msg.subarray(at, at + macSize));
  at += macSize;
  const originalId = msg.readUInt16BE(at);
  const error = msg.readUInt16BE(at + 2);
  const otherLength = msg.readUInt16BE(at + 4);
  at += 6;
  need(otherLength);
  const other = Buffer.from(msg.subarray(at, at + otherLength));
  if (at + otherLength !== rr.end) throw new MalformedMessage('TSIG length');
  return {
    keyKey: rr.key,
    keyName: rr.name,
    algorithmKey: alg.key,
    algorithm: ALGORITHM_BY_KEY.get(alg.key) ?? null,
    timeSigned,
    fudge,
    mac,
    originalId,
    error,
    other,
    start: rr.start,
  };
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u48 = (n: number) => {
  const b = Buffer.alloc(6);
  b.writeUInt16BE(Math.floor(n / 2 ** 32) & 0xffff, 0);
  b.writeUInt32BE(n % 2 ** 32, 2);
  return b;
};
const withLength = (b: Buffer) => Buffer.concat([u16(b.length), b]);

interface Variables {
  keyKey: string;
  algorithm: TsigAlgorithm;
  timeSigned: number;
  fudge: number;
  error: number;
  other: Buffer;
}

/** §4.3.3: key name, class, TTL, algorithm, time, fudge, error, other. */
function variables(v: Variables): Buffer {
  return Buffer.concat([
    Buffer.from(v.keyKey, 'latin1'),
    u16(CLASS.ANY),
    Buffer.alloc(4),
    ALGORITHM_WIRE.get(v.algorithm)!,
    u48(v.timeSigned),
    u16(v.fudge),
    u16(v.error),
    withLength(v.other),
  ]);
}

const timers = (timeSigned: number, fudge: number) => Buffer.concat([u48(timeSigned), u16(fudge)]);

/** The message as it was before signing: TSIG removed, ARCOUNT back, the original id. */
function unsigned(msg: Buffer, tsig: TsigRecord): Buffer {
  const out = Buffer.from(msg.subarray(0, tsig.start));
  out.writeUInt16BE(tsig.originalId, 0);
  out.writeUInt16BE(out.readUInt16BE(10) - 1, 10);
  return out;
}

function hmac(key: TsigKey, parts: Buffer[]): Buffer {
  const h = createHmac(HASH[key.algorithm].hash, key.secret);
  for (const p of parts) h.update(p);
  return h.digest();
}

export type Verification = { ok: true; mac: Buffer } | { ok: false; error: number; mac: Buffer | null };

/**
 * Checks a request's (or a response's, with `requestMac`) signature against `key`, found by
 * the caller from tsig.keyName. BADKEY when the algorithm differs, BADSIG on a wrong or
 * truncated MAC, BADTIME outside the fudge window (checked after the MAC, §5.2.3).
 */
export function verifyTsig(
  msg: Buffer,
  tsig: TsigRecord,
  key: TsigKey | undefined,
  nowSeconds: number,
  requestMac?: Buffer,
): Verification {
  if (!key || tsig.algorithm !== key.algorithm) return { ok: false, error: TSIG_ERROR.BADKEY, mac: null };
  const expected = hmac(key, [
    ...(requestMac ? [withLength(requestMac)] : []),
    unsigned(msg, tsig),
    variables({
      keyKey: tsig.keyKey,
      algorithm: key.algorithm,
      timeSigned: tsig.timeSigned,
      fudge: tsig.fudge,
      error: tsig.error,
      other: tsig.other,
    }),
  ]);
  // Truncated MACs (§5.2.2.1) are not accepted: every client we serve sends the full one.
  if (tsig.mac.length !== expected.length || !timingSafeEqual(tsig.mac, expected))
    return { ok: false, error: TSIG_ERROR.BADSIG, mac: null };
  if (Math.abs(nowSeconds - tsig.timeSigned) > tsig.fudge)
    return { ok: false, error: TSIG_ERROR.BADTIME, mac: tsig.mac };
  return { ok: true, mac: tsig.mac };
}

export interface SignOptions {
  nowSeconds: number;
  /** The request's MAC, when signing a response to a signed request. */
  requestMac?: Buffer;
  error?: number;
  other?: Buffer;
  /** A message after the first of a multi-message answer: sign over this previous MAC and the timers only. */
  priorMac?: Buffer;
  /** Sign with an empty MAC (BADKEY/BADSIG answers are unsigned, §5.3.2). */
  unsignedError?: boolean;
}

/** Appends a TSIG record to `msg` (a complete message without one); returns the signed message and its MAC. */
export function signMessage(msg: Buffer, key: TsigKey, options: SignOptions): { message: Buffer; mac: Buffer } {
  const { record, mac } = tsigRecord([msg], key, options);
  const message = Buffer.concat([msg, record]);
  message.writeUInt16BE(msg.readUInt16BE(10) + 1, 10);
  return { message, mac };
}

/**
 * The TSIG record for a message given in parts (the header first, its ARCOUNT not yet
 * counting the TSIG), and its MAC: a transfer signs a header, a question and a shared body
 * without copying them into one buffer. The caller appends the record and adds 1 to ARCOUNT.
 */
export function tsigRecord(parts: Buffer[], key: TsigKey, options: SignOptions): { record: Buffer; mac: Buffer } {
  const keyName = keyWire(key);
  const v: Variables = {
    keyKey: keyName.toString('latin1'),
    algorithm: key.algorithm,
    timeSigned: options.nowSeconds,
    fudge: FUDGE_SECONDS,
    error: options.error ?? 0,
    other: options.other ?? Buffer.alloc(0),
  };
  let mac: Buffer;
  if (options.unsignedError) mac = Buffer.alloc(0);
  else if (options.priorMac) mac = hmac(key, [withLength(options.priorMac), ...parts, timers(v.timeSigned, v.fudge)]);
  else mac = hmac(key, [...(options.requestMac ? [withLength(options.requestMac)] : []), ...parts, variables(v)]);
  const rdata = Buffer.concat([
    ALGORITHM_WIRE.get(key.algorithm)!,
    u48(v.timeSigned),
    u16(v.fudge),
    withLength(mac),
    parts[0].subarray(0, 2),
    u16(v.error),
    withLength(v.other),
  ]);
  const record = Buffer.concat([keyName, u16(TSIG_TYPE), u16(CLASS.ANY), Buffer.alloc(4), withLength(rdata)]);
  return { record, mac };
}

/** Signs the messages of one multi-message answer in order (§5.3.1: every message signed). */
export class TsigStream {
  private prior: Buffer | null = null;

  constructor(
    private readonly key: TsigKey,
    private readonly requestMac: Buffer,
    private readonly now: () => number,
  ) {}

  sign(msg: Buffer): Buffer {
    const record = this.record([msg]);
    const message = Buffer.concat([msg, record]);
    message.writeUInt16BE(msg.readUInt16BE(10) + 1, 10);
    return message;
  }

  /** The TSIG record of the next message, given in parts (see tsigRecord). */
  record(parts: Buffer[]): Buffer {
    const now = this.now();
    const signed = tsigRecord(
      parts,
      this.key,
      this.prior ? { nowSeconds: now, priorMac: this.prior } : { nowSeconds: now, requestMac: this.requestMac },
    );
    this.prior = signed.mac;
    return signed.record;
  }
}

/** `name:algorithm:base64secret` (SECONDARY_TSIG_KEY) or `algorithm:name:secret` as dig -y takes it. */
export function parseKeySpec(spec: string): TsigKey {
  const parts = spec.trim().split(':');
  if (parts.length !== 3) throw new Error('a TSIG key is name:algorithm:base64secret');
  const [a, b, secret] = parts;
  const [name, algorithm] = TSIG_ALGORITHMS.includes(a as TsigAlgorithm) ? [b, a] : [a, b];
  if (!TSIG_ALGORITHMS.includes(algorithm as TsigAlgorithm))
    throw new Error(`TSIG algorithm must be one of ${TSIG_ALGORITHMS.join(', ')}`);
  const bytes = Buffer.from(secret, 'base64');
  if (bytes.length < 16) throw new Error('a TSIG secret needs at least 16 bytes');
  return { name: name.toLowerCase().replace(/\.$/, ''), algorithm: algorithm as TsigAlgorithm, secret: bytes };
}
