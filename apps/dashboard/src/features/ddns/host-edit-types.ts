/** `PUT /api/domains/fqdn/{fqdn}` (decision 0091): every field optional; an address family sent as null is removed. */
export interface HostEditRequest {
  record_ip?: string;
  ipv4?: string | null;
  ipv6?: string | null;
  ttl?: number;
}

export type AddressFamily = 'ipv4' | 'ipv6';
export const FAMILY_LABEL: Record<AddressFamily, string> = { ipv4: 'IPv4', ipv6: 'IPv6' };
/** The same bounds the service checks (MIN_HOST_TTL, MAX_HOST_TTL). */
export const HOST_TTL_MIN = 60;
export const HOST_TTL_MAX = 86_400;
