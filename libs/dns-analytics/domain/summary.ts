/**
 * The seed's DNS analytics summary object (plus the contract's health_signal), computed
 * from summed rollups only.
 */
import { ERROR_RCODES, SUMMARY_RCODES } from './query-row';
import { latencyPercentile, RollupCounts, topEntries } from './rollup';

export const WINDOWS = ['24h', '7d', '30d'] as const;
export type Window = (typeof WINDOWS)[number];

/** |change| within this percentage: the trend is stable (the seed's example: about 5 %). */
export const STABLE_PERCENT = 5;
/** |change| beyond this percentage raises the health signal (contract §12). */
export const SIGNAL_PERCENT = 50;
export const TOP_COUNTRIES = 10;
export const TOP_ASNS = 5;
export const TOP_NXDOMAIN = 10;

export interface SummaryInputs {
  /** Breakdown window's summed rollups. */
  window: RollupCounts;
  total24h: number;
  total7d: number;
  total30d: number;
  /** Queries in the 7 days before the last 24 h. */
  previous7d: number;
}

export interface HealthSignal {
  status: 'normal' | 'drop' | 'spike';
  message: string;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const pct = (part: number, total: number) => (total === 0 ? 0 : round((part / total) * 100, 2));

/** Last 24 h against the daily average of the 7 days before. */
export function trendOf(
  last24h: number,
  previous7d: number,
): { query_trend: 'up' | 'down' | 'stable'; trend_percent: number; health_signal: HealthSignal } {
  const baseline = previous7d / 7;
  if (baseline === 0) {
    // No history: nothing to compare against, so no alarm either way.
    return {
      query_trend: last24h > 0 ? 'up' : 'stable',
      trend_percent: last24h > 0 ? 100 : 0,
      health_signal: { status: 'normal', message: 'Not enough history to compare against yet' },
    };
  }
  const change = round(((last24h - baseline) / baseline) * 100, 1);
  const query_trend = Math.abs(change) <= STABLE_PERCENT ? 'stable' : change > 0 ? 'up' : 'down';
  const avg = round(baseline, 1);
  const health_signal: HealthSignal =
    change < -SIGNAL_PERCENT
      ? {
          status: 'drop',
          message: `Query volume dropped ${Math.abs(change)}% below the 7-day daily average (${last24h} vs ${avg})`,
        }
      : change > SIGNAL_PERCENT
        ? {
            status: 'spike',
            message: `Query volume spiked ${change}% above the 7-day daily average (${last24h} vs ${avg})`,
          }
        : { status: 'normal', message: 'Query volume is within the usual range' };
  return { query_trend, trend_percent: change, health_signal };
}

export function buildSummary(input: SummaryInputs, countryName: (code: string) => string) {
  const c = input.window;
  const response_codes = Object.fromEntries(SUMMARY_RCODES.map((r) => [r, c.rcodes[r] ?? 0]));
  const errors = ERROR_RCODES.reduce((n, r) => n + (c.rcodes[r] ?? 0), 0);
  return {
    total_queries_24h: input.total24h,
    total_queries_7d: input.total7d,
    total_queries_30d: input.total30d,
    avg_response_ms: c.total === 0 ? 0 : round(c.latencySumMs / c.total, 3),
    ...trendOf(input.total24h, input.previous7d),
    error_rate: c.total === 0 ? 0 : round(errors / c.total, 4),
    response_codes,
    protocol_posture: {
      dnssec_pct: pct(c.dnssecOk, c.total),
      ipv6_pct: pct(c.ipv6, c.total),
      edns_pct: pct(c.edns, c.total),
      tcp_fallback_pct: pct(c.tcp, c.total),
      p95_ms: latencyPercentile(c, 0.95),
      p99_ms: latencyPercentile(c, 0.99),
    },
    query_types: topEntries(Object.entries(c.qtypes), Infinity).map(([type, query_count]) => ({ type, query_count })),
    top_countries: topEntries(Object.entries(c.countries), TOP_COUNTRIES).map(([country_code, query_count]) => ({
      country_code,
      country_name: countryName(country_code),
      query_count,
    })),
    top_asns: topEntries(Object.entries(c.asns), TOP_ASNS).map(([asn, query_count]) => ({
      asn,
      organization: c.asOrgs[asn] ?? asn,
      query_count,
    })),
    top_nxdomain: topEntries(Object.entries(c.nxdomain), TOP_NXDOMAIN).map(([qname, query_count]) => ({
      qname,
      query_count,
    })),
  };
}

export type Summary = ReturnType<typeof buildSummary>;
