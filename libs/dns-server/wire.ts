/**
 * The hot path's wire format: reading a query without a general decoder (header, one
 * question, the OPT record) and assembling a response from the request's own question
 * bytes and a precomputed body. Everything is bounds-checked by hand, because this code
 * reads whatever a stranger sends.
 */

export const QTYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  HINFO: 13,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  NAPTR: 35,
  CERT: 37,
  OPT: 41,
  DS: 43,
  SSHFP: 44,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  CDS: 59,
  CDNSKEY: 60,
  OPENPGPKEY: 61,
  SVCB: 64,
  HTTPS: 65,
  TLSA: 52,
  SMIMEA: 53,
  URI: 256,
  IXFR: 251,
  AXFR: 252,
  ANY: 255,
  CAA: 257,
} as const;

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, BADVERS: 16 } as const;
export type RcodeName = keyof typeof RCODE;
/** Indexed by rcode: an array load per answered query where a Map lookup showed in profiles. */
const RCODE_NAMES: Array<RcodeName | undefined> = [];
for (const [name, value] of Object.entries(RCODE)) RCODE_NAMES[value] = name as RcodeName;
export const rcodeName = (rcode: number): RcodeName => RCODE_NAMES[rcode] ?? 'SERVFAIL';

const CLASS_IN = 1;
const QTYPE_TSIG = 250;
const HEADER = 12;
/** What we advertise and the most we send over UDP (the DNS flag day 2020 value). */
export const MAX_UDP_PAYLOAD = 1232;
export const MIN_UDP_PAYLOAD = 512;

const FLAG_QR = 0x8000;
const FLAG_AA = 0x0400;
const FLAG_TC = 0x0200;
const FLAG_RD = 0x0100;
const FLAG_CD = 0x0010;
const OPT_RR_LENGTH = 11;
const NO_COUNTS: [number, number, number] = [0, 0, 0];

export interface Query {
  id: number;
  flags: number;
  /** Offset just after the question's class: the question is copied verbatim from 12 to here. */
  questionEnd: number;
  /** Lowercased wire name as latin1 (see names.ts). */
  key: string;
  qtype: number;
  qclass: number;
  edns: boolean;
  ednsVersion: number;
  /** Client's advertised UDP payload size, 0 without EDNS. */
  udpSize: number;
  dnssecOk: boolean;
  /** Carries a TSIG record (RFC 8945): answered by the transfer path, which verifies and signs. */
  signed: boolean;
}

/** `drop`: not worth an answer (too short to echo an id, or itself a response). */
export type ParseResult =
  | { ok: true; query: Query }
  | { ok: false; action: 'drop' }
  | { ok: false; action: 'error'; rcode: number; id: number; flags: number; questionEnd: number };

const drop = { ok: false, action: 'drop' } as const;

export function parseQuery(msg: Buffer): ParseResult {
  if (msg.length < HEADER) return drop;
  const id = msg.readUInt16BE(0);
  const flags = msg.readUInt16BE(2);
  if (flags & FLAG_QR) return drop;
  const fail = (rcode: number, questionEnd = 0): ParseResult => ({
    ok: false,
    action: 'error',
    rcode,
    id,
    flags,
    questionEnd,
  });
  const opcode = (flags >> 11) & 0xf;
  if (msg.readUInt16BE(4) !== 1) return fail(opcode === 0 ? RCODE.FORMERR : RCODE.NOTIMP);

  const nameEnd = questionNameEnd(msg);
  if (nameEnd < 0 || nameEnd + 4 > msg.length) return fail(RCODE.FORMERR);
  const questionEnd = nameEnd + 4;
  if (opcode !== 0) return fail(RCODE.NOTIMP, questionEnd);
  const qtype = msg.readUInt16BE(nameEnd);
  const qclass = msg.readUInt16BE(nameEnd + 2);

  const ancount = msg.readUInt16BE(6);
  const nscount = msg.readUInt16BE(8);
  const arcount = msg.readUInt16BE(10);
  let at = questionEnd;
  let edns = false;
  let ednsVersion = 0;
  let udpSize = 0;
  let dnssecOk = false;
  let signed = false;
  for (let i = 0; i < ancount + nscount + arcount; i++) {
    const nameLen = skipName(msg, at);
    if (nameLen < 0 || at + nameLen + 10 > msg.length) return fail(RCODE.FORMERR, questionEnd);
    const rrAt = at + nameLen;
    const type = msg.readUInt16BE(rrAt);
    const rdlength = msg.readUInt16BE(rrAt + 8);
    if (rrAt + 10 + rdlength > msg.length) return fail(RCODE.FORMERR, questionEnd);
    if (type === QTYPE.OPT) {
      // RFC 6891 §6.1.1: one OPT, owned by the root, in the additional section.
      if (edns || i < ancount + nscount || nameLen !== 1 || msg[at] !== 0) return fail(RCODE.FORMERR, questionEnd);
      edns = true;
      udpSize = msg.readUInt16BE(rrAt + 2);
      ednsVersion = msg[rrAt + 5];
      dnssecOk = (msg.readUInt16BE(rrAt + 6) & 0x8000) !== 0;
    } else if (type === QTYPE_TSIG) {
      signed = true;
    }
    at = rrAt + 10 + rdlength;
  }
  if (qtype === QTYPE.OPT) return fail(RCODE.FORMERR, questionEnd);

  const key = msg.toString('latin1', HEADER, nameEnd).toLowerCase();
  return {
    ok: true,
    query: { id, flags, questionEnd, key, qtype, qclass, edns, ednsVersion, udpSize, dnssecOk, signed },
  };
}

/** End of the question's name; -1 when it is truncated, too long, or compressed (nothing precedes it to point at). */
function questionNameEnd(msg: Buffer): number {
  let at = HEADER;
  while (at < msg.length) {
    const len = msg[at];
    if (len === 0) return at + 1 - HEADER > 255 ? -1 : at + 1;
    if (len > 63) return -1;
    at += len + 1;
  }
  return -1;
}

/** Length of a possibly compressed name at `at`, or -1 when malformed. */
function skipName(msg: Buffer, at: number): number {
  const start = at;
  while (at < msg.length) {
    const len = msg[at];
    if (len === 0) return at + 1 - start;
    if ((len & 0xc0) === 0xc0) return at + 2 <= msg.length ? at + 2 - start : -1;
    if (len > 63) return -1;
    at += len + 1;
  }
  return -1;
}

export const isInClass = (q: Query): boolean => q.qclass === CLASS_IN;

/**
 * A precomputed response body: answer, authority and additional RRs in wire format, with
 * the end offset of each RRset so truncation drops whole RRsets (RFC 2181 §9).
 */
export interface Body {
  rcode: number;
  authoritative: boolean;
  bytes: Buffer;
  counts: [number, number, number];
  /** Per RRset, in order: its end offset in bytes, its section (0 answer, 1 authority, 2 additional), its RR count. */
  rrsets: Array<{ end: number; section: 0 | 1 | 2; count: number }>;
}

export const EMPTY_BODY = (rcode: number, authoritative = false): Body => ({
  rcode,
  authoritative,
  bytes: Buffer.alloc(0),
  counts: [0, 0, 0],
  rrsets: [],
});

/**
 * The response to `q`, at most `limit` bytes. Whole RRsets that do not fit are left out;
 * leaving out anything from the answer or authority sections sets TC.
 */
export function buildResponse(req: Buffer, q: Query, body: Body, limit: number): Buffer {
  const out = Buffer.allocUnsafe(Math.min(limit, q.questionEnd + (q.edns ? OPT_RR_LENGTH : 0) + body.bytes.length));
  return out.subarray(0, writeResponse(out, 0, req, q, body, limit));
}

/** buildResponse into `out` at `at` (which must have `limit` bytes of room); returns the length. */
export function writeResponse(out: Buffer, at: number, req: Buffer, q: Query, body: Body, limit: number): number {
  const badVersion = q.edns && q.ednsVersion !== 0;
  const optLength = q.edns ? OPT_RR_LENGTH : 0;
  const fixed = q.questionEnd + optLength;
  let bytes = body.bytes.length;
  let counts = body.counts;
  let truncated = false;
  if (badVersion) {
    bytes = 0;
    counts = NO_COUNTS;
  } else if (fixed + bytes > limit) {
    ({ bytes, counts, truncated } = fitRRsets(body, limit - fixed));
  }
  const rcode = badVersion ? 0 : body.rcode;
  let flags = FLAG_QR | (q.flags & (FLAG_RD | FLAG_CD)) | (rcode & 0xf);
  if (body.authoritative && !badVersion) flags |= FLAG_AA;
  if (truncated) flags |= FLAG_TC;
  out.writeUInt16BE(q.id, at);
  out.writeUInt16BE(flags, at + 2);
  out.writeUInt16BE(1, at + 4);
  out.writeUInt16BE(counts[0], at + 6);
  out.writeUInt16BE(counts[1], at + 8);
  out.writeUInt16BE(counts[2] + (q.edns ? 1 : 0), at + 10);
  req.copy(out, at + HEADER, HEADER, q.questionEnd);
  body.bytes.copy(out, at + q.questionEnd, 0, bytes);
  if (q.edns) writeOpt(out, at + q.questionEnd + bytes, badVersion ? 1 : body.rcode >> 4, q.dnssecOk);
  return fixed + bytes;
}

/** The longest prefix of whole RRsets that fits; bytes are copied as a prefix, so the first misfit ends it. */
function fitRRsets(body: Body, room: number): { bytes: number; counts: [number, number, number]; truncated: boolean } {
  const counts: [number, number, number] = [0, 0, 0];
  let bytes = 0;
  for (const rrset of body.rrsets) {
    // Additional data may go silently (RFC 2181 §9); answer or authority data may not.
    if (rrset.end > room) return { bytes, counts, truncated: rrset.section !== 2 };
    bytes = rrset.end;
    counts[rrset.section] += rrset.count;
  }
  return { bytes, counts, truncated: false };
}

function writeOpt(out: Buffer, at: number, extendedRcode: number, dnssecOk: boolean): void {
  out[at] = 0;
  out.writeUInt16BE(QTYPE.OPT, at + 1);
  out.writeUInt16BE(MAX_UDP_PAYLOAD, at + 3);
  out[at + 5] = extendedRcode;
  out[at + 6] = 0;
  out.writeUInt16BE(dnssecOk ? 0x8000 : 0, at + 7);
  out.writeUInt16BE(0, at + 9);
}

/** Header-only (plus the question when it was readable) answer for queries we cannot serve. */
export function errorResponse(req: Buffer, id: number, reqFlags: number, rcode: number, questionEnd: number): Buffer {
  const out = Buffer.allocUnsafe(errorResponseLength(questionEnd));
  writeErrorResponse(out, 0, req, id, reqFlags, rcode, questionEnd);
  return out;
}

export const errorResponseLength = (questionEnd: number): number => (questionEnd > 0 ? questionEnd : HEADER);

/** errorResponse into `out` at `at`; returns the length. */
export function writeErrorResponse(
  out: Buffer,
  at: number,
  req: Buffer,
  id: number,
  reqFlags: number,
  rcode: number,
  questionEnd: number,
): number {
  out.writeUInt16BE(id, at);
  out.writeUInt16BE(FLAG_QR | (reqFlags & 0x7800) | (reqFlags & FLAG_RD) | (rcode & 0xf), at + 2);
  out.writeUInt16BE(questionEnd > 0 ? 1 : 0, at + 4);
  out.fill(0, at + 6, at + HEADER);
  if (questionEnd > 0) req.copy(out, at + HEADER, HEADER, questionEnd);
  return errorResponseLength(questionEnd);
}

/** UDP size limit for a query (RFC 6891 §6.2.5, capped at what we advertise). */
export const udpLimit = (q: Query): number =>
  q.edns ? Math.min(Math.max(q.udpSize, MIN_UDP_PAYLOAD), MAX_UDP_PAYLOAD) : MIN_UDP_PAYLOAD;
