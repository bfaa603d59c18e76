import { Addresses } from '../../domains/domain/domain.events';
import { AddressChanges } from './ddns-request';

/**
 * dyndns2 result words (ddns.md). None of the error words contains `ok`, `good`, `true`,
 * `updated` or `success`: inadyn's custom provider reads those substrings as success.
 */
export type ResultWord =
  'good' | 'nochg' | 'nohost' | 'notfqdn' | 'numhost' | 'abuse' | 'dnserr' | 'badauth' | 'badip' | '911' | '!donator';

export interface HostResult {
  hostname: string | null;
  result: ResultWord;
  addresses: Addresses | null;
}

/**
 * The addresses a `good`/`nochg` line reports: the families the request set, as now
 * stored; when it set none (it only kept or deleted), every address the host has.
 */
export function reportedIps(addresses: Addresses, changes: AddressChanges): string {
  const set = (['ipv4', 'ipv6'] as const).filter((f) => changes[f].kind === 'set' && addresses[f]);
  const families = set.length ? set : (['ipv4', 'ipv6'] as const).filter((f) => addresses[f]);
  return families.map((f) => addresses[f]).join(',');
}

/** One line per host, in request order. */
export function textLine(result: HostResult, changes: AddressChanges): string {
  if ((result.result === 'good' || result.result === 'nochg') && result.addresses) {
    return `${result.result} ${reportedIps(result.addresses, changes)}`;
  }
  return result.result;
}

export const v2Result = (r: HostResult) => ({
  hostname: r.hostname,
  result: r.result,
  ipv4: r.addresses?.ipv4 ?? null,
  ipv6: r.addresses?.ipv6 ?? null,
});
