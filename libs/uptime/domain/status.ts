import { addTallies, percentage, Tally, WindowTallies } from './history';

export type CurrentStatus = 'operational' | 'down' | 'pending' | 'no_ip' | 'disabled';

export interface LastCheck {
  at: string;
  is_up: boolean;
  response_time_ms: number | null;
  error: string | null;
}

/** What the status of one domain depends on. */
export interface MonitorFacts {
  monitorEnabled: boolean;
  /** When monitoring was last turned on; a check from before it does not end `pending`. */
  enabledAt: string | null;
  hasIp: boolean;
  last: LastCheck | null;
}

/** Contract §6, in order of precedence: disabled, no_ip, pending, then the last check's outcome. */
export function currentStatus(f: MonitorFacts): CurrentStatus {
  if (!f.monitorEnabled) return 'disabled';
  if (!f.hasIp) return 'no_ip';
  if (!f.last || (f.enabledAt !== null && f.last.at < f.enabledAt)) return 'pending';
  return f.last.is_up ? 'operational' : 'down';
}

export interface DashboardInput {
  status: CurrentStatus;
  last: LastCheck | null;
  windows: WindowTallies;
}

export interface Dashboard {
  overall_uptime_24h: number | null;
  overall_uptime_7d: number | null;
  overall_uptime_30d: number | null;
  domains_monitored: number;
  domains_up: number;
  domains_down: number;
  average_response_time_ms: number | null;
}

const ZERO: Tally = { checks: 0, up: 0 };

/**
 * The seed's dashboard over an account's domains. Disabled domains count toward none of
 * the figures. Overall uptime pools the checks (successful over total across domains),
 * so a domain checked more often weighs more, exactly as "successful checks divided by
 * total checks" reads. The average response time is over the latest check of each
 * monitored domain that is up (a down check has no response time).
 */
export function dashboard(domains: readonly DashboardInput[]): Dashboard {
  const monitored = domains.filter((d) => d.status !== 'disabled');
  const sum = (pick: (w: WindowTallies) => Tally) => monitored.reduce((t, d) => addTallies(t, pick(d.windows)), ZERO);
  const times = monitored
    .filter((d) => d.status === 'operational' && d.last?.response_time_ms != null)
    .map((d) => d.last!.response_time_ms!);
  return {
    overall_uptime_24h: percentage(sum((w) => w.h24)),
    overall_uptime_7d: percentage(sum((w) => w.d7)),
    overall_uptime_30d: percentage(sum((w) => w.d30)),
    domains_monitored: monitored.length,
    domains_up: monitored.filter((d) => d.status === 'operational').length,
    domains_down: monitored.filter((d) => d.status === 'down').length,
    average_response_time_ms: times.length ? Math.round(times.reduce((a, b) => a + b, 0) / times.length) : null,
  };
}
