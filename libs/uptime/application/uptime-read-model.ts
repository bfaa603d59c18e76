import type { UptimeDomainDoc } from '../../../projections/uptime-domains.projection';

/** The address a check connects to: IPv4 when the domain has one, else its IPv6. */
export const checkAddress = (d: Pick<UptimeDomainDoc, 'ipv4' | 'ipv6'>): string | null => d.ipv4 ?? d.ipv6;
