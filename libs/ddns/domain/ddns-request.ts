import { canonicalIp, Family, familyOf } from '../../domains/domain/addresses';
import { FamilyChange } from '../../domains/domain/domain.decider';

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
const KEEP: FamilyChange = { kind: 'keep' };

/** The first value of a parameter, trimmed; undefined when absent. */
export function param(params: Params, key: string): string | undefined {
  const raw = params[key];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value.trim() : undefined;
}

/** What one parameter value says about one family: a change, or nothing. */
function changeFor(value: string, family: Family): FamilyChange | null {
  for (const item of value.split(',').map((s) => s.trim())) {
    if (item.toLowerCase() === 'preserve') return KEEP;
    if (item === '-') return { kind: 'delete' };
    const ip = canonicalIp(item);
    if (ip !== null && familyOf(ip) === family) return { kind: 'set', ip };
  }
  return null;
}

/**
 * The address changes a dyndns2 request asks for. Values may be a comma list of one v4
 * and one v6; `preserve` keeps a family and `-` deletes it. With no address at all, or
 * only empty/unusable values (ddclient 3.10 sends `myip=` for IPv6-only), the request's
 * source address is used for its family. A family not supplied is kept.
 */
export function addressChanges(params: Params, sourceIp: string): AddressChanges {
  const result: AddressChanges = { ipv4: KEEP, ipv6: KEEP };
  let decided = false;
  for (const family of ['ipv4', 'ipv6'] as const) {
    for (const key of KEYS[family]) {
      const value = param(params, key);
      if (value === undefined || value === '') continue;
      const change = changeFor(value, family);
      if (change) {
        result[family] = change;
        decided = true;
        break;
      }
    }
  }
  // Something usable for another family (say only a v6 was sent) means this family is simply not supplied.
  const anyUsable = ALL_ADDRESS_KEYS.some((k) => {
    const v = param(params, k);
    return v !== undefined && v !== '' && (changeFor(v, 'ipv4') !== null || changeFor(v, 'ipv6') !== null);
  });
  if (!decided && !anyUsable) {
    const ip = canonicalIp(sourceIp);
    const family = ip === null ? null : familyOf(ip);
    if (ip && family) result[family] = { kind: 'set', ip };
  }
  return result;
}

/** Requested host names in order (comma list, blanks dropped), lowercased without a trailing dot. */
export function hostnames(params: Params): string[] {
  const raw = param(params, 'hostname');
  if (!raw) return [];
  return raw
    .split(',')
    .map((h) => h.trim().toLowerCase().replace(/\.$/, ''))
    .filter((h) => h !== '');
}

export const isOffline = (params: Params): boolean => (param(params, 'offline') ?? '').toUpperCase() === 'YES';
