/**
 * The record types a signed modern zone needs beyond the classic ones (issue 29, contract
 * §17): PTR, NAPTR, CERT, SSHFP, TLSA, SMIMEA, OPENPGPKEY, SVCB, HTTPS, URI. Each is parsed
 * from presentation format, checked, and kept as its wire rdata with its canonical text
 * (dns-packet knows only some of them, so the rdata is built here, as the RFCs give it).
 */
import { isIPv6 } from 'node:net';
import { canonicalName, hostnameProblem, nameToWire } from './names';

/** Rdata built here: its wire form and its canonical presentation text. */
export class RawRdata {
  constructor(
    readonly rdata: Buffer,
    readonly text: string,
    /** A host name the record points at (for diagnostics), '' when none. */
    readonly target = '',
  ) {}
}

export const MODERN_TYPES = [
  'PTR',
  'NAPTR',
  'CERT',
  'SSHFP',
  'TLSA',
  'SMIMEA',
  'OPENPGPKEY',
  'SVCB',
  'HTTPS',
  'URI',
] as const;

export interface Word {
  text: string;
  bytes: Buffer;
  quoted: boolean;
}

const u8 = (n: number) => Buffer.from([n]);
const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};

/** An unsigned integer field of rdata (shared with rdata.ts). */
export function uint(text: string, bits: 8 | 16, what: string): number {
  const max = 2 ** bits - 1;
  if (!/^\d+$/.test(text) || Number(text) > max) throw new Error(`${what} must be an integer 0-${max}, got "${text}"`);
  return Number(text);
}

function hexOf(words: Word[], what: string): Buffer {
  const hex = words.map((w) => w.text).join('');
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) throw new Error(`${what} must be hexadecimal (an even number of digits)`);
  return Buffer.from(hex, 'hex');
}

function base64Of(words: Word[], what: string): Buffer {
  const text = words.map((w) => w.text).join('');
  if (text === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0)
    throw new Error(`${what} must be base64`);
  return Buffer.from(text, 'base64');
}

/** A host name in rdata, canonical; the root (".") as '' where a type gives it a meaning (shared with rdata.ts). */
export function hostName(text: string, rootAllowed: boolean): string {
  if (text === '.') {
    if (rootAllowed) return '';
    throw new Error('"." is not a host name here');
  }
  const name = canonicalName(text);
  const problem = hostnameProblem(name);
  if (problem) throw new Error(problem);
  return name;
}

const absolute = (name: string) => (name === '' ? '.' : `${name}.`);

/** A <character-string>: at most 255 bytes, shown quoted with \" and \\ escaped, other odd bytes as \DDD. */
function characterString(w: Word, what: string): Buffer {
  if (w.bytes.length > 255) throw new Error(`${what} is longer than 255 bytes`);
  return Buffer.concat([u8(w.bytes.length), w.bytes]);
}

function quote(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += '\\' + String.fromCharCode(b);
    else if (b < 0x20 || b >= 0x7f) out += '\\' + String(b).padStart(3, '0');
    else out += String.fromCharCode(b);
  }
  return out + '"';
}

const DIGEST_LENGTHS: Record<number, number> = { 1: 32, 2: 64 };
const SSHFP_LENGTHS: Record<number, number> = { 1: 20, 2: 32 };
const CERT_TYPES: Record<string, number> = {
  PKIX: 1,
  SPKI: 2,
  PGP: 3,
  IPKIX: 4,
  ISPKI: 5,
  IPGP: 6,
  ACPKIX: 7,
  IACPKIX: 8,
  URI: 253,
  OID: 254,
};
const CERT_ALGORITHMS: Record<string, number> = {
  RSAMD5: 1,
  DH: 2,
  DSA: 3,
  RSASHA1: 5,
  RSASHA256: 8,
  RSASHA512: 10,
  ECDSAP256SHA256: 13,
  ECDSAP384SHA384: 14,
  ED25519: 15,
  ED448: 16,
};

export function parseModern(type: string, words: Word[]): RawRdata {
  switch (type) {
    case 'PTR': {
      if (words.length !== 1) throw new Error('expected a host name');
      const name = hostName(words[0].text, false);
      return new RawRdata(nameToWire(name), absolute(name), name);
    }
    case 'TLSA':
    case 'SMIMEA': {
      // RFC 6698 §7 / RFC 8162: usage, selector, matching type, certificate association data (hex).
      if (words.length < 4) throw new Error('expected usage, selector, matching type and data');
      const usage = uint(words[0].text, 8, 'usage');
      const selector = uint(words[1].text, 8, 'selector');
      const matching = uint(words[2].text, 8, 'matching type');
      if (usage > 3) throw new Error('usage must be 0-3');
      if (selector > 1) throw new Error('selector must be 0 or 1');
      if (matching > 2) throw new Error('matching type must be 0, 1 or 2');
      const data = hexOf(words.slice(3), 'the certificate association data');
      const expected = DIGEST_LENGTHS[matching];
      if (expected && data.length !== expected)
        throw new Error(`matching type ${matching} needs ${expected} bytes of data, got ${data.length}`);
      return new RawRdata(
        Buffer.concat([u8(usage), u8(selector), u8(matching), data]),
        `${usage} ${selector} ${matching} ${data.toString('hex').toUpperCase()}`,
      );
    }
    case 'SSHFP': {
      // RFC 4255 §3.2: algorithm, fingerprint type, fingerprint (hex).
      if (words.length < 3) throw new Error('expected algorithm, fingerprint type and fingerprint');
      const algorithm = uint(words[0].text, 8, 'algorithm');
      const fpType = uint(words[1].text, 8, 'fingerprint type');
      const fp = hexOf(words.slice(2), 'the fingerprint');
      const expected = SSHFP_LENGTHS[fpType];
      if (!expected) throw new Error('fingerprint type must be 1 (SHA-1) or 2 (SHA-256)');
      if (fp.length !== expected)
        throw new Error(`fingerprint type ${fpType} needs ${expected} bytes, got ${fp.length}`);
      return new RawRdata(
        Buffer.concat([u8(algorithm), u8(fpType), fp]),
        `${algorithm} ${fpType} ${fp.toString('hex').toUpperCase()}`,
      );
    }
    case 'OPENPGPKEY': {
      const key = base64Of(words, 'the key');
      return new RawRdata(key, key.toString('base64'));
    }
    case 'CERT': {
      // RFC 4398 §2.2: type, key tag, algorithm (numbers or mnemonics), certificate (base64).
      if (words.length < 4) throw new Error('expected type, key tag, algorithm and certificate');
      const certType = CERT_TYPES[words[0].text.toUpperCase()] ?? uint(words[0].text, 16, 'type');
      const tag = uint(words[1].text, 16, 'key tag');
      const algorithm = CERT_ALGORITHMS[words[2].text.toUpperCase()] ?? uint(words[2].text, 8, 'algorithm');
      const cert = base64Of(words.slice(3), 'the certificate');
      return new RawRdata(
        Buffer.concat([u16(certType), u16(tag), u8(algorithm), cert]),
        `${certType} ${tag} ${algorithm} ${cert.toString('base64')}`,
      );
    }
    case 'URI': {
      // RFC 7553 §4.4: priority, weight, "target" (the target runs to the end of the rdata).
      if (words.length !== 3 || !words[2].quoted) throw new Error('expected priority, weight and a quoted target');
      const priority = uint(words[0].text, 16, 'priority');
      const weight = uint(words[1].text, 16, 'weight');
      const target = words[2].bytes;
      if (target.length === 0) throw new Error('the target is empty');
      return new RawRdata(
        Buffer.concat([u16(priority), u16(weight), target]),
        `${priority} ${weight} ${quote(target)}`,
      );
    }
    case 'NAPTR': {
      // RFC 3403 §4.1: order, preference, "flags", "services", "regexp", replacement.
      if (words.length !== 6) throw new Error('expected order, preference, flags, services, regexp and replacement');
      const order = uint(words[0].text, 16, 'order');
      const preference = uint(words[1].text, 16, 'preference');
      const [flags, services, regexp] = words.slice(2, 5);
      if (!/^[a-z0-9]*$/i.test(flags.bytes.toString('latin1'))) throw new Error('flags must be letters and digits');
      const replacement = hostName(words[5].text, true);
      const rdata = Buffer.concat([
        u16(order),
        u16(preference),
        characterString(flags, 'flags'),
        characterString(services, 'services'),
        characterString(regexp, 'regexp'),
        nameToWire(replacement),
      ]);
      return new RawRdata(
        rdata,
        `${order} ${preference} ${quote(flags.bytes)} ${quote(services.bytes)} ${quote(regexp.bytes)} ${absolute(replacement)}`,
        replacement,
      );
    }
    case 'SVCB':
    case 'HTTPS':
      return parseSvcb(words);
    default:
      throw new Error(`type ${type} is not supported`);
  }
}

// ---------------------------------------------------------------- SVCB/HTTPS (RFC 9460)

const SVC_KEYS: Record<string, number> = {
  mandatory: 0,
  alpn: 1,
  'no-default-alpn': 2,
  port: 3,
  ipv4hint: 4,
  ech: 5,
  ipv6hint: 6,
  dohpath: 7,
};
const SVC_NAMES = Object.fromEntries(Object.entries(SVC_KEYS).map(([k, v]) => [v, k]));
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

const keyNumber = (name: string): number => {
  if (name in SVC_KEYS) return SVC_KEYS[name];
  const m = /^key(\d{1,5})$/.exec(name);
  if (!m || Number(m[1]) > 65534) throw new Error(`unknown SvcParamKey "${name}"`);
  return Number(m[1]);
};
const keyName = (n: number): string => SVC_NAMES[n] ?? `key${n}`;

/** Splits a comma-separated value list, "\," keeping a comma inside an item (RFC 9460 Appendix A.1). */
function valueList(value: string): string[] {
  const items: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\' && i + 1 < value.length) current += value[++i];
    else if (value[i] === ',') {
      items.push(current);
      current = '';
    } else current += value[i];
  }
  items.push(current);
  return items;
}

function ipv6Bytes(ip: string): Buffer {
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, null];
  const parse = (s: string) => (s ? s.split(':') : []);
  let groups = parse(head);
  if (tail !== null) {
    const rest = parse(tail);
    groups = [...groups, ...Array(8 - groups.length - rest.length).fill('0'), ...rest];
  }
  const last = groups[groups.length - 1];
  if (last?.includes('.')) {
    const v4 = last.split('.').map(Number);
    groups.splice(groups.length - 1, 1, ((v4[0] << 8) | v4[1]).toString(16), ((v4[2] << 8) | v4[3]).toString(16));
  }
  return Buffer.concat(groups.map((g) => u16(parseInt(g, 16))));
}

function svcValue(key: number, value: string | null): { wire: Buffer; text: string } {
  const need = () => {
    if (value === null || value === '') throw new Error(`${keyName(key)} needs a value`);
    return value;
  };
  switch (key) {
    case 0: {
      const keys = valueList(need()).map(keyNumber);
      if (keys.includes(0)) throw new Error('mandatory cannot list itself');
      const sorted = [...new Set(keys)].sort((a, b) => a - b);
      if (sorted.length !== keys.length) throw new Error('mandatory lists a key twice');
      return { wire: Buffer.concat(sorted.map(u16)), text: sorted.map(keyName).join(',') };
    }
    case 1: {
      const ids = valueList(need());
      for (const id of ids)
        if (id.length === 0 || Buffer.byteLength(id) > 255) throw new Error('an alpn id is empty or too long');
      return {
        wire: Buffer.concat(ids.map((id) => Buffer.concat([u8(Buffer.byteLength(id)), Buffer.from(id)]))),
        text: `"${ids.map((id) => id.replace(/[\\,]/g, (c) => `\\\\${c}`)).join(',')}"`,
      };
    }
    case 2:
      if (value !== null) throw new Error('no-default-alpn takes no value');
      return { wire: Buffer.alloc(0), text: '' };
    case 3:
      return { wire: u16(uint(need(), 16, 'port')), text: String(Number(need())) };
    case 4: {
      const ips = valueList(need());
      for (const ip of ips) if (!IPV4.test(ip)) throw new Error(`ipv4hint "${ip}" is not an IPv4 address`);
      return { wire: Buffer.concat(ips.map((ip) => Buffer.from(ip.split('.').map(Number)))), text: ips.join(',') };
    }
    case 5: {
      const ech = base64Of([{ text: need(), bytes: Buffer.alloc(0), quoted: false }], 'ech');
      return { wire: ech, text: ech.toString('base64') };
    }
    case 6: {
      const ips = valueList(need());
      for (const ip of ips)
        if (!isIPv6(ip) || ip.includes('%')) throw new Error(`ipv6hint "${ip}" is not an IPv6 address`);
      return { wire: Buffer.concat(ips.map(ipv6Bytes)), text: ips.map((ip) => ip.toLowerCase()).join(',') };
    }
    case 7: {
      const path = need();
      if (!path.includes('{?dns}')) throw new Error('dohpath must hold the {?dns} variable');
      return { wire: Buffer.from(path), text: `"${path}"` };
    }
    default: {
      const raw = Buffer.from(value ?? '');
      return { wire: raw, text: value === null ? '' : quote(raw) };
    }
  }
}

function parseSvcb(words: Word[]): RawRdata {
  if (words.length < 2) throw new Error('expected priority and target name');
  const priority = uint(words[0].text, 16, 'priority');
  const target = hostName(words[1].text, true);
  const params = new Map<number, { wire: Buffer; text: string }>();
  for (const w of words.slice(2)) {
    const eq = w.text.indexOf('=');
    const name = (eq < 0 ? w.text : w.text.slice(0, eq)).toLowerCase();
    let value = eq < 0 ? null : w.text.slice(eq + 1);
    if (value !== null && value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    const key = keyNumber(name);
    if (params.has(key)) throw new Error(`${name} appears twice`);
    params.set(key, svcValue(key, value));
  }
  if (priority === 0 && params.size > 0) throw new Error('AliasMode (priority 0) takes no parameters');
  const mandatory = params.get(0);
  if (mandatory) {
    for (let i = 0; i < mandatory.wire.length; i += 2) {
      const k = mandatory.wire.readUInt16BE(i);
      if (!params.has(k)) throw new Error(`mandatory lists ${keyName(k)}, which is missing`);
    }
  }
  const keys = [...params.keys()].sort((a, b) => a - b);
  const rdata = Buffer.concat([
    u16(priority),
    nameToWire(target),
    ...keys.flatMap((k) => [u16(k), u16(params.get(k)!.wire.length), params.get(k)!.wire]),
  ]);
  const text = [
    String(priority),
    absolute(target),
    ...keys.map((k) => (params.get(k)!.text === '' && k === 2 ? keyName(k) : `${keyName(k)}=${params.get(k)!.text}`)),
  ].join(' ');
  return new RawRdata(rdata, text, target);
}
