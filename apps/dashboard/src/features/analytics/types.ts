/** Shapes of the DNS analytics API (contract §12, docs/dns-analytics-volume.md) as the dashboard uses them. */
import type { Body } from '../../api/schema';

export type AnalyticsWindow = '24h' | '7d' | '30d';

export interface AnalyticsSummary {
  total_queries_24h: number;
  total_queries_7d: number;
  total_queries_30d: number;
  avg_response_ms: number;
  query_trend: 'up' | 'down' | 'stable';
  trend_percent: number;
  health_signal: { status: 'normal' | 'drop' | 'spike'; message: string };
  error_rate: number;
  response_codes: Record<string, number>;
  protocol_posture: {
    dnssec_pct: number;
    ipv6_pct: number;
    edns_pct: number;
    tcp_fallback_pct: number;
    p95_ms: number;
    p99_ms: number;
  };
  query_types: { type: string; query_count: number }[];
  top_countries: { country_code: string; country_name: string; query_count: number }[];
  top_asns: { asn: string; organization: string; query_count: number }[];
  top_nxdomain: { qname: string; query_count: number }[];
}

export type VolumeSeries = Body<'DnsAnalyticsController_volume'>;

export interface RecentQuery {
  qname: string;
  qtype: string;
  rcode: string;
  client_ip: string;
  country_code: string;
  timestamp: string;
  response_ms: number;
  domain: string;
}
