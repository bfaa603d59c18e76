import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { SUMMARY_RCODES } from '../domain/query-row';

/**
 * Response bodies of the DNS analytics reads (contract §12) for /openapi.json, as `buildSummary`
 * (domain/summary.ts) and `recentView` (application/dns-analytics.queries.ts) build them;
 * test/management-openapi.e2e-spec.ts validates real answers against them, and the dashboard's
 * types are generated from them. The volume series keeps its schema on its route (decorators).
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const counted = (key: string, extra: Record<string, SchemaObject> = {}): SchemaObject => ({
  type: 'object',
  required: [key, ...Object.keys(extra), 'query_count'],
  properties: { [key]: { type: 'string' }, ...extra, query_count: { type: 'integer' } },
});
const percent = { type: 'number', minimum: 0, maximum: 100 } as const;

export const DNS_ANALYTICS_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  AnalyticsSummary: {
    type: 'object',
    required: [
      'total_queries_24h',
      'total_queries_7d',
      'total_queries_30d',
      'avg_response_ms',
      'query_trend',
      'trend_percent',
      'health_signal',
      'error_rate',
      'response_codes',
      'protocol_posture',
      'query_types',
      'top_countries',
      'top_asns',
      'top_nxdomain',
    ],
    properties: {
      total_queries_24h: { type: 'integer' },
      total_queries_7d: { type: 'integer' },
      total_queries_30d: { type: 'integer' },
      avg_response_ms: { type: 'number', description: 'Over the window; 0 when it holds no query' },
      query_trend: { type: 'string', enum: ['up', 'down', 'stable'] },
      trend_percent: { type: 'number', description: 'Last 24 h against the daily average of the 7 days before' },
      health_signal: {
        type: 'object',
        required: ['status', 'message'],
        properties: { status: { type: 'string', enum: ['normal', 'drop', 'spike'] }, message: { type: 'string' } },
      },
      error_rate: { type: 'number', minimum: 0, maximum: 1, description: 'NXDOMAIN, SERVFAIL and REFUSED answers' },
      response_codes: {
        type: 'object',
        required: [...SUMMARY_RCODES],
        properties: Object.fromEntries(SUMMARY_RCODES.map((r) => [r, { type: 'integer' }])),
        additionalProperties: false,
      },
      protocol_posture: {
        type: 'object',
        required: ['dnssec_pct', 'ipv6_pct', 'edns_pct', 'tcp_fallback_pct', 'p95_ms', 'p99_ms'],
        properties: {
          dnssec_pct: percent,
          ipv6_pct: percent,
          edns_pct: percent,
          tcp_fallback_pct: percent,
          p95_ms: { type: 'number' },
          p99_ms: { type: 'number' },
        },
      },
      query_types: { type: 'array', items: counted('type'), description: 'Every type asked, most asked first' },
      top_countries: { type: 'array', items: counted('country_code', { country_name: { type: 'string' } }) },
      top_asns: { type: 'array', items: counted('asn', { organization: { type: 'string' } }) },
      top_nxdomain: { type: 'array', items: counted('qname') },
    },
  },
  RecentQuery: {
    type: 'object',
    required: ['qname', 'qtype', 'rcode', 'client_ip', 'country_code', 'timestamp', 'response_ms', 'domain'],
    properties: {
      qname: { type: 'string' },
      qtype: { type: 'string' },
      rcode: { type: 'string' },
      client_ip: { type: 'string' },
      country_code: { type: 'string' },
      timestamp: { type: 'string', format: 'date-time' },
      response_ms: { type: 'number' },
      domain: { type: 'string' },
    },
  },
  RecentQueries: {
    type: 'object',
    required: ['queries'],
    properties: { queries: { type: 'array', items: ref('RecentQuery'), description: 'Newest first' } },
  },
};

/** operationId → status → the schema of its body. */
export const DNS_ANALYTICS_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  DnsAnalyticsController_summary: { '200': 'AnalyticsSummary' },
  DnsAnalyticsController_recent: { '200': 'RecentQueries' },
};
