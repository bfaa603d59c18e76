/**
 * A bounds-checked reader for whole DNS messages (transfer requests, NOTIFY, UPDATE):
 * header, questions and every resource record with its offsets, names decompressed into
 * lowercased wire keys (see dns-server/names.ts). The query hot path has its own reader
 * (dns-server/wire.ts); this one is for the few messages that need every section.
 */
import { wireKeyToName } from '../dns-server/names';
import { UPDATE_RCODE } from '../zones/domain/dns-update';

export const OPCODE = { QUERY: 0, NOTIFY: 4, UPDATE: 5 } as const;
export const CLASS = { IN: 1, NONE: 254, ANY: 255 } as const;
/** The response codes of RFC 1035 and RFC 2136 (one table, kept with the update's domain). */
export const RCODE = UPDATE_RCODE;
const HEADER = 12;
const MAX_POINTERS = 64;

export class MalformedMessage extends Error {}

export interface WireQuestion {
  key: string;
  name: string;
  type: number;
  class: number;
}

export interface WireRR {
  /** Lowercased, uncompressed wire name as latin1. */
  key: string;
  name: string;
  type: number;
  class: number;
  ttl: number;
  /** Offset of the record's first byte (its owner name) and just past its rdata. */
  start: number;
  end: number;
  /** Offset of RDLENGTH (what dns-packet's per-type decoders read from). */
  rdlengthAt: number;
  rdata: Buffer;
}

export interface WireMessage {
  id: number;
  flags: number;
  opcode: number;
  rcode: number;
  isResponse: boolean;
  questions: WireQuestion[];
  /** Offset just past the question section (12 when there is none). */
  questionEnd: number;
  answers: WireRR[];
  authorities: WireRR[];
  additionals: WireRR[];
}

/** Reads a (possibly compressed) name at `at`: its lowercased wire key and where the name ends in place. */
export function readName(msg: Buffer, at: number): { key: string; end: number } {
  const labels: Buffer[] = [];
  let length = 1;
  let end = -1;
  let jumps = 0;
  for (;;) {
    if (at >= msg.length) throw new MalformedMessage('name runs past the message');
    const len = msg[at];
    if (len === 0) {
      if (end < 0) end = at + 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      if (at + 1 >= msg.length || ++jumps > MAX_POINTERS) throw new MalformedMessage('bad compression pointer');
      if (end < 0) end = at + 2;
      at = ((len & 0x3f) << 8) | msg[at + 1];
      continue;
    }
    if (len > 63) throw new MalformedMessage('bad label length');
    if (at + 1 + len > msg.length) throw new MalformedMessage('label runs past the message');
    labels.push(msg.subarray(at, at + 1 + len));
    length += len + 1;
    if (length > 255) throw new MalformedMessage('name longer than 255 octets');
    at += len + 1;
  }
  const key = Buffer.concat([...labels, Buffer.from([0])])
    .toString('latin1')
    .toLowerCase();
  return { key, end };
}

export function readMessage(msg: Buffer): WireMessage {
  if (msg.length < HEADER) throw new MalformedMessage('shorter than a header');
  const flags = msg.readUInt16BE(2);
  const counts = [4, 6, 8, 10].map((o) => msg.readUInt16BE(o));
  let at = HEADER;
  const questions: WireQuestion[] = [];
  for (let i = 0; i < counts[0]; i++) {
    const { key, end } = readName(msg, at);
    if (end + 4 > msg.length) throw new MalformedMessage('truncated question');
    questions.push({ key, name: wireKeyToName(key), type: msg.readUInt16BE(end), class: msg.readUInt16BE(end + 2) });
    at = end + 4;
  }
  const questionEnd = at;
  const sections: WireRR[][] = [[], [], []];
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < counts[s + 1]; i++) {
      const start = at;
      const { key, end } = readName(msg, at);
      if (end + 10 > msg.length) throw new MalformedMessage('truncated record');
      const rdlength = msg.readUInt16BE(end + 8);
      if (end + 10 + rdlength > msg.length) throw new MalformedMessage('record data runs past the message');
      sections[s].push({
        key,
        name: wireKeyToName(key),
        type: msg.readUInt16BE(end),
        class: msg.readUInt16BE(end + 2),
        ttl: msg.readUInt32BE(end + 4),
        start,
        end: end + 10 + rdlength,
        rdlengthAt: end + 8,
        rdata: msg.subarray(end + 10, end + 10 + rdlength),
      });
      at = end + 10 + rdlength;
    }
  }
  if (at !== msg.length) throw new MalformedMessage('bytes after the last record');
  return {
    id: msg.readUInt16BE(0),
    flags,
    opcode: (flags >> 11) & 0xf,
    rcode: flags & 0xf,
    isResponse: (flags & 0x8000) !== 0,
    questions,
    questionEnd,
    answers: sections[0],
    authorities: sections[1],
    additionals: sections[2],
  };
}

/** A message header: id, flags, and the four counts. */
export function header(id: number, flags: number, counts: [number, number, number, number]): Buffer {
  const out = Buffer.alloc(HEADER);
  out.writeUInt16BE(id, 0);
  out.writeUInt16BE(flags, 2);
  counts.forEach((c, i) => out.writeUInt16BE(c, 4 + i * 2));
  return out;
}

/** A question in wire form from a lowercased wire key. */
export function question(key: string, type: number, klass: number = CLASS.IN): Buffer {
  const name = Buffer.from(key, 'latin1');
  const out = Buffer.alloc(name.length + 4);
  name.copy(out);
  out.writeUInt16BE(type, name.length);
  out.writeUInt16BE(klass, name.length + 2);
  return out;
}

/** Response flags for a request: QR, its opcode, AA when authoritative, RD copied, the rcode. */
export function responseFlags(requestFlags: number, rcode: number, authoritative: boolean): number {
  return 0x8000 | (requestFlags & 0x7800) | (authoritative ? 0x0400 : 0) | (requestFlags & 0x0100) | (rcode & 0xf);
}
