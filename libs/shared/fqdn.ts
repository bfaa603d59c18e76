/**
 * Host names of dynamic-DNS domains (contract §4): LDH labels (letters, digits, inner
 * hyphens), at most 63 characters a label and 253 in all, compared lowercase without the
 * trailing dot. Underscores are not allowed here, unlike zone record owners: a host name
 * is something a browser or ping must accept.
 */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const normalizeFqdn = (fqdn: string): string => fqdn.trim().toLowerCase().replace(/\.$/, '');

export function isHostname(fqdn: string): boolean {
  if (fqdn.length === 0 || fqdn.length > 253) return false;
  const labels = fqdn.split('.');
  return labels.length >= 2 && labels.every((l) => LDH_LABEL.test(l));
}

/** True when `name` is `zone` itself or a name below it. */
export const isAtOrUnder = (name: string, zone: string): boolean => name === zone || name.endsWith(`.${zone}`);
export const isStrictlyUnder = (name: string, zone: string): boolean => name.endsWith(`.${zone}`);

/** The longest of `zones` that holds `name` (at or below), or null. */
export function longestZoneOf(name: string, zones: Iterable<string>): string | null {
  let best: string | null = null;
  for (const zone of zones) if (isAtOrUnder(name, zone) && (best === null || zone.length > best.length)) best = zone;
  return best;
}

/**
 * Where a new host may live: strictly below a service zone (`DDNS_ZONES`; the apex is the
 * service's), or at or below one of the account's verified zones (its own apex is its own).
 */
export function fqdnAllowed(fqdn: string, ddnsZones: readonly string[], verifiedZones: readonly string[]): boolean {
  if (!isHostname(fqdn)) return false;
  return ddnsZones.some((z) => isStrictlyUnder(fqdn, z)) || verifiedZones.some((z) => isAtOrUnder(fqdn, z));
}
