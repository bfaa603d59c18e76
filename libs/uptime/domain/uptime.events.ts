import { DomainEvent } from '../../shared/decider';

/**
 * Monitoring toggles live on one stream per account (`monitors-<account>`), so the
 * per-plan limit is decided on one consistent set: two concurrent enables cannot both
 * see room for one more domain.
 */
export type MonitorEnabled = DomainEvent<
  'MonitorEnabled',
  { account_id: number; domain_id: number; fqdn: string; at: string }
>;

/** `reason` tells a user's toggle from the release of a domain that was deleted while monitored. */
export type MonitorDisabled = DomainEvent<
  'MonitorDisabled',
  { account_id: number; domain_id: number; fqdn: string; reason: 'user' | 'domain_deleted'; at: string }
>;

export type MonitorEvent = MonitorEnabled | MonitorDisabled;
export const MONITOR_EVENT_TYPES: readonly MonitorEvent['type'][] = ['MonitorEnabled', 'MonitorDisabled'];

/**
 * One uptime check (seed: timestamp, reachability, response time, error), appended to
 * the domain's `uptime-<id>` stream, which expires after 31 days. `ip`/`port` say what
 * was probed, so an audit can tell checks before and after a DDNS address change apart.
 */
export type CheckRecorded = DomainEvent<
  'CheckRecorded',
  {
    domain_id: number;
    account_id: number;
    checked_at: string;
    is_up: boolean;
    /** Connect time of the port that answered; null when down. */
    response_time_ms: number | null;
    /** One of CHECK_ERRORS (or the system's text); null when up. */
    error: string | null;
    ip: string;
    /** The port that answered, or the last port tried when down. */
    port: number;
  }
>;

export const CHECK_ERRORS = [
  'connection timeout',
  'connection refused',
  'host unreachable',
  'network unreachable',
] as const;

export const monitorsStream = (accountId: number) => `monitors-${accountId}`;
export const uptimeStream = (domainId: number) => `uptime-${domainId}`;
/** Raw checks expire after 31 days (contract §6); the read model keeps 24 h hourly and 30 days daily. */
export const UPTIME_STREAM_MAX_AGE_SECONDS = 31 * 86_400;
