import { Bucket } from '../libs/uptime/domain/history';
import { LastCheck } from '../libs/uptime/domain/status';

export const UPTIME_PROJECTION = 'uptime';
export const UPTIME_DOMAINS = 'uptime_domains';

/**
 * One document per domain: what the scheduler needs (monitored? which address?), the
 * current status (last check) and the bounded history (24 hourly + 30 daily buckets),
 * so each check costs one read and one write of one document, and history needs no
 * separate pruning job.
 */
export interface UptimeDomainDoc {
  _id: number;
  domain_id: number;
  account_id: number;
  fqdn: string;
  ipv4: string | null;
  ipv6: string | null;
  monitor_enabled: boolean;
  enabled_at: string | null;
  /** Deleted domains stay (marked) so the scheduler learns to drop them and the limit stops counting them. */
  deleted: boolean;
  /**
   * Global position of the last event that changed what the scheduler checks (address,
   * monitoring, deletion); checks do not move it, so schedulers sync incrementally.
   */
  target_pos: number;
  last: LastCheck | null;
  hourly: Bucket[];
  daily: Bucket[];
  /** Position of the last event applied (idempotence guard). */
  _pos: number;
}

/** The address a check connects to: IPv4 when the domain has one, else its IPv6. */
export const checkAddress = (d: Pick<UptimeDomainDoc, 'ipv4' | 'ipv6'>): string | null => d.ipv4 ?? d.ipv6;
