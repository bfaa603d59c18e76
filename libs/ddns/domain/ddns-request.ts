import { canonicalIp, Family, familyOf } from '../../domains/domain/addresses';
import { FamilyChange } from '../../domains/domain/domain.decider';
import { targetProblem } from '../../shared/target-ranges';

export const MAX_HOSTS = 20;

/** Query or form parameters as Fastify hands them over (a repeated key becomes an array). */
export type Params = Record<string, string | string[] | undefined>;

export interface AddressChanges {
  ipv4: FamilyChange;
  ipv6: FamilyChange;
}

// ddns.md: IPv4 from myip, myipv4, ip; IPv6 from myipv6, ipv6, myip, ip (first present key wins).
const KEYS: Record<Family, string[]> = { ipv4: ['myip', 'myipv4', 'ip'], ipv6: ['myipv6', 'ipv6', 'myip', 'ip'] };
const ALL_ADDRESS_KEYS = [...new Set([...KEYS.ipv4, ...KEYS.ipv6])];
const FAMILIES = ['ipv4', 'ipv6'] as const;
const KEEP: FamilyChange = { kind: 'keep' };

/** The first value of a parameter, trimmed; undefined when absent. */
export function param(params: Params, key: string): string | undefined {
  const raw = params[key];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value.trim() : undefined;
}

const isKeyword = (item: string) => item.toLowerCase() === 'preserve' || item === '-';

/**
 * The comma list's items (untrimmed): the value itself when it has no comma (the usual `myip=` of one
 * address), so a request's parse builds no array, and no closure, per value it reads (decision 0130).
 */
const itemsOf = (value: string): string[] | string => (value.includes(',') ? value.split(',') : value);

/** What one parameter value says about one family: a change, or nothing. */
function changeFor(value: string, family: Family): FamilyChange | null {
  const items = itemsOf(value);
  if (typeof items === 'string') return itemChange(items.trim(), family);
  for (const raw of items) {
    const change = itemChange(raw.trim(), family);
    if (change) return change;
  }
  return null;
}

/** What one trimmed item says about one family (null: nothing, the next item may). */
function itemChange(item: string, family: Family): FamilyChange | null {
  if (item.toLowerCase() === 'preserve') return KEEP;
  if (item === '-') return { kind: 'delete' };
  const ip = canonicalIp(item);
  return ip !== null && familyOf(ip) === family ? { kind: 'set', ip } : null;
}

/** A value with an item that is neither an address nor `preserve`/`-` (ddns.md: `badip`). */
function malformed(value: string): boolean {
  const items = itemsOf(value);
  if (typeof items === 'string') return malformedItem(items.trim());
  for (const item of items) if (malformedItem(item.trim())) return true;
  return false;
}

// An empty item ("v4," from a client with no v6) says nothing; it is not malformed.
const malformedItem = (item: string): boolean => item !== '' && !isKeyword(item) && canonicalIp(item) === null;

/** ddns.md: a malformed address, or one in a refused range; nothing is changed. */
export const BAD_IP = 'badip';

/**
 * The address changes a dyndns2 request asks for. Values may be a comma list of one v4
 * and one v6; `preserve` keeps a family and `-` deletes it. With no address at all, or
 * only empty values (ddclient 3.10 sends `myip=` for IPv6-only), the request's source
 * address is used for its family. A family not supplied is kept.
 *
 * `badip` when a value is malformed (never replaced by the caller's address) or when an
 * address to set, the source address included, is in a range refused for targets
 * (contract §16) unless `allowPrivate`.
 */
export function addressChanges(
  params: Params,
  sourceIp: string,
  allowPrivate: boolean,
): AddressChanges | typeof BAD_IP {
  let given = false;
  for (const key of ALL_ADDRESS_KEYS) {
    const value = param(params, key);
    if (value === undefined || value === '') continue;
    given = true;
    if (malformed(value)) return BAD_IP;
  }
  const result: AddressChanges = { ipv4: KEEP, ipv6: KEEP };
  for (const family of FAMILIES) {
    for (const key of KEYS[family]) {
      const value = param(params, key);
      if (value === undefined || value === '') continue;
      const change = changeFor(value, family);
      if (change) {
        result[family] = change;
        break;
      }
    }
  }
  if (!given) {
    const ip = canonicalIp(sourceIp);
    const family = ip === null ? null : familyOf(ip);
    if (ip && family) result[family] = { kind: 'set', ip };
  }
  for (const family of FAMILIES) {
    const change = result[family];
    if (change.kind === 'set' && targetProblem(change.ip, allowPrivate) !== null) return BAD_IP;
  }
  return result;
}

/** Requested host names in order (comma list, blanks dropped), lowercased without a trailing dot. */
export function hostnames(params: Params): string[] {
  const raw = param(params, 'hostname');
  if (!raw) return [];
  const items = itemsOf(raw);
  if (typeof items === 'string') {
    const host = hostnameOf(items);
    return host === '' ? [] : [host];
  }
  const out: string[] = [];
  for (const item of items) {
    const host = hostnameOf(item);
    if (host !== '') out.push(host);
  }
  return out;
}

const hostnameOf = (item: string): string => {
  const host = item.trim().toLowerCase();
  return host.endsWith('.') ? host.slice(0, -1) : host;
};

export const isOffline = (params: Params): boolean => (param(params, 'offline') ?? '').toUpperCase() === 'YES';
