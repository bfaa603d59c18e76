/**
 * Presentation-format rdata (the strings of an RRset's `records`, contract §4) to
 * dns-packet answer data and back. The zones API validates with parseRecord, the zone
 * index encodes what it returns, so a record that passes here is one the server can serve.
 */
import { isIPv6 } from 'node:net';
import type { CaaData, DsData, MxData, SrvData } from 'dns-packet';
import { canonicalName } from './names';
import { hostName, MODERN_TYPES, parseModern, RawRdata, uint } from './rdata-modern';

export { RawRdata } from './rdata-modern';

export const SUPPORTED_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'DS', ...MODERN_TYPES] as const;
export type SupportedType = (typeof SUPPORTED_TYPES)[number];

/** TXT data is always a list of character-strings, kept as bytes so \DDD escapes survive. */
export type RecordData = string | MxData | SrvData | CaaData | DsData | Buffer[] | RawRdata;

export const isSupportedType = (type: string): type is SupportedType =>
  (SUPPORTED_TYPES as readonly string[]).includes(type);

/** Digest lengths of the DS digest types in use (SHA-1, SHA-256, SHA-384). */
const DS_DIGEST_LENGTHS: Record<number, number> = { 1: 20, 2: 32, 4: 48 };
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const CAA_TAG = /^[a-z0-9]{1,15}$/i;
/** An address written plainly: it is its own one token, nothing to unquote or unescape. */
const PLAIN_ADDRESS = /^[0-9a-fA-F.:]+$/;
const MAX_STRING = 255;

interface Token {
  bytes: Buffer;
  quoted: boolean;
}

/** Parses one record; throws an Error whose message names the type, the text and the problem. */
export function parseRecord(type: string, text: string): RecordData {
  const upper = type.toUpperCase();
  try {
    return parseByType(upper, text);
  } catch (err) {
    const problem = err instanceof Error ? err.message : String(err);
    throw new Error(`invalid ${upper} record "${text}": ${problem}`, { cause: err });
  }
}

function parseByType(type: string, text: string): RecordData {
  // Every DDNS update sets an address: without the tokenizer's Buffers when there is nothing to tokenize.
  if ((type === 'A' || type === 'AAAA') && PLAIN_ADDRESS.test(text)) return parseAddress(type, text);
  // SVCB parameters quote values inside a word (alpn="h2,h3"): split them on their own terms.
  if (type === 'SVCB' || type === 'HTTPS') return parseModern(type, svcbWords(text));
  const tokens = tokenize(text);
  if ((MODERN_TYPES as readonly string[]).includes(type))
    return parseModern(
      type,
      tokens.map((t) => ({ text: t.bytes.toString('latin1'), bytes: t.bytes, quoted: t.quoted })),
    );
  switch (type) {
    case 'A':
      return parseAddress(type, single(tokens, 'an IPv4 address'));
    case 'AAAA':
      return parseAddress(type, single(tokens, 'an IPv6 address'));
    case 'CNAME':
    case 'NS':
      return target(single(tokens, 'a host name'), false);
    case 'MX': {
      const [pref, exchange] = fields(tokens, ['preference', 'exchange']);
      return { preference: uint(pref, 16, 'preference'), exchange: target(exchange, true) };
    }
    case 'SRV': {
      const [priority, weight, port, host] = fields(tokens, ['priority', 'weight', 'port', 'target']);
      return {
        priority: uint(priority, 16, 'priority'),
        weight: uint(weight, 16, 'weight'),
        port: uint(port, 16, 'port'),
        target: target(host, true),
      };
    }
    case 'CAA': {
      if (tokens.length !== 3) throw new Error('expected flags, tag and value');
      const tag = tokens[1].bytes.toString('latin1');
      if (!CAA_TAG.test(tag)) throw new Error(`tag "${tag}" must be 1-15 letters or digits`);
      const value = tokens[2].bytes.toString('utf8');
      return {
        flags: uint(tokens[0].bytes.toString('latin1'), 8, 'flags'),
        tag: tag.toLowerCase() as CaaData['tag'],
        value,
      };
    }
    case 'TXT': {
      if (tokens.length === 0) throw new Error('no text');
      const strings = tokens.some((t) => t.quoted) ? tokens.map(quotedOnly) : chunk(Buffer.from(text.trim(), 'utf8'));
      for (const s of strings)
        if (s.length > MAX_STRING) throw new Error(`a quoted string is longer than ${MAX_STRING} bytes`);
      return strings;
    }
    case 'DS': {
      // RFC 4034 §5.3: key tag, algorithm, digest type, digest in hex (which may be split by blanks).
      if (tokens.length < 4) throw new Error('expected key tag, algorithm, digest type and digest');
      const words = tokens.map((t) => t.bytes.toString('latin1'));
      const hex = words.slice(3).join('');
      const digestType = uint(words[2], 8, 'digest type');
      if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) throw new Error('the digest must be hexadecimal');
      const expected = DS_DIGEST_LENGTHS[digestType];
      if (expected !== undefined && hex.length !== expected * 2)
        throw new Error(`a digest of type ${digestType} has ${expected} bytes`);
      return {
        keyTag: uint(words[0], 16, 'key tag'),
        algorithm: uint(words[1], 8, 'algorithm'),
        digestType,
        digest: Buffer.from(hex, 'hex'),
      };
    }
    default:
      throw new Error(`type must be one of ${SUPPORTED_TYPES.join(', ')}`);
  }
}

/** Canonical presentation text of parsed data: lowercase names with a trailing dot, TXT quoted. */
export function formatRecord(type: string, data: RecordData | string | Buffer | Array<string | Buffer>): string {
  if (data instanceof RawRdata) return data.text;
  switch (type.toUpperCase()) {
    case 'A':
    case 'AAAA':
      return String(data);
    case 'CNAME':
    case 'NS':
      return absolute(String(data));
    case 'MX': {
      const mx = data as MxData;
      return `${mx.preference ?? 0} ${absolute(mx.exchange)}`;
    }
    case 'SRV': {
      const srv = data as SrvData;
      return `${srv.priority ?? 0} ${srv.weight ?? 0} ${srv.port} ${absolute(srv.target)}`;
    }
    case 'CAA': {
      const caa = data as CaaData;
      return `${caa.flags ?? (caa.issuerCritical ? 128 : 0)} ${caa.tag} ${quote(Buffer.from(caa.value, 'utf8'))}`;
    }
    case 'TXT': {
      const list = Array.isArray(data) ? data : [data as string | Buffer];
      return list.map((s) => quote(typeof s === 'string' ? Buffer.from(s, 'utf8') : s)).join(' ');
    }
    case 'DS': {
      const ds = data as DsData;
      return `${ds.keyTag} ${ds.algorithm} ${ds.digestType} ${ds.digest.toString('hex').toUpperCase()}`;
    }
    default:
      throw new Error(`cannot format type ${type}`);
  }
}

const absolute = (name: string): string => (name === '' || name === '.' ? '.' : `${canonicalName(name)}.`);

function parseAddress(type: 'A' | 'AAAA', ip: string): string {
  if (type === 'A') {
    if (!IPV4.test(ip)) throw new Error('not a dotted-quad IPv4 address');
    return ip;
  }
  if (!isIPv6(ip) || ip.includes('%')) throw new Error('not an IPv6 address');
  return ip.toLowerCase();
}

function single(tokens: Token[], what: string): string {
  if (tokens.length !== 1) throw new Error(`expected ${what}`);
  return tokens[0].bytes.toString('latin1');
}

function fields(tokens: Token[], names: string[]): string[] {
  if (tokens.length !== names.length) throw new Error(`expected ${names.join(', ')}`);
  return tokens.map((t) => t.bytes.toString('latin1'));
}

/** A host name in rdata; "." (the root) only where RFC 7505/2782 give it a meaning. */
const target = (text: string, rootAllowed: boolean): string => hostName(text, rootAllowed) || '.';

function quotedOnly(token: Token): Buffer {
  if (!token.quoted) throw new Error('mixes quoted and unquoted text; quote every string');
  return token.bytes;
}

function chunk(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += MAX_STRING) out.push(bytes.subarray(at, at + MAX_STRING));
  return out;
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

/** Splits on blanks outside quotes, resolving \X and \DDD escapes (RFC 1035 §5.1). */
function tokenize(text: string): Token[] {
  const input = Buffer.from(text, 'utf8');
  const tokens: Token[] = [];
  let at = 0;
  while (at < input.length) {
    const c = input[at];
    if (c === 0x20 || c === 0x09) {
      at++;
      continue;
    }
    if (c === 0x0a || c === 0x0d) throw new Error('line breaks are not allowed');
    const quoted = c === 0x22;
    if (quoted) at++;
    const bytes: number[] = [];
    let closed = !quoted;
    while (at < input.length) {
      const b = input[at];
      if (quoted && b === 0x22) {
        closed = true;
        at++;
        break;
      }
      if (!quoted && (b === 0x20 || b === 0x09)) break;
      if (!quoted && b === 0x22) throw new Error('a quote in the middle of a word');
      if (b === 0x0a || b === 0x0d) throw new Error('line breaks are not allowed');
      if (b === 0x5c) {
        const [value, used] = escape(input, at + 1);
        bytes.push(value);
        at += 1 + used;
        continue;
      }
      bytes.push(b);
      at++;
    }
    if (!closed) throw new Error('unterminated quoted string');
    if (quoted && at < input.length && input[at] !== 0x20 && input[at] !== 0x09) {
      throw new Error('quoted strings must be separated by blanks');
    }
    tokens.push({ bytes: Buffer.from(bytes), quoted });
  }
  return tokens;
}

function escape(input: Buffer, at: number): [number, number] {
  if (at >= input.length) throw new Error('a backslash at the end');
  const digits = input.subarray(at, at + 3).toString('latin1');
  if (/^\d/.test(digits)) {
    if (!/^\d{3}$/.test(digits) || Number(digits) > 255) throw new Error('\\DDD escapes need three digits 000-255');
    return [Number(digits), 3];
  }
  return [input[at], 1];
}

/** Words of SVCB/HTTPS presentation text: blanks separate, a quoted value may follow "key=". */
function svcbWords(text: string): Array<{ text: string; bytes: Buffer; quoted: boolean }> {
  if (/[\r\n]/.test(text)) throw new Error('line breaks are not allowed');
  const words = text.trim().match(/(?:[^\s"]*"(?:[^"\\]|\\.)*")|\S+/g) ?? [];
  for (const w of words)
    if ((w.match(/(?<!\\)"/g) ?? []).length % 2 !== 0) throw new Error('unterminated quoted string');
  return words.map((w) => ({ text: w, bytes: Buffer.from(w, 'utf8'), quoted: false }));
}
