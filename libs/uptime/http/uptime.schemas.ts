import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { CHECK_WINDOWS } from '../domain/checks';
import { HISTORY_WINDOWS } from '../domain/history';
import { MONITOR_LIMITS } from '../domain/monitor.decider';

/**
 * Response bodies of the uptime reads (contract §6) for /openapi.json, as `uptimeRecord`,
 * `UptimeQueries` (uptime.queries.ts), `UptimeChecks` (uptime-checks.ts) and `dashboard` (domain/status.ts) build them;
 * test/management-openapi.e2e-spec.ts validates real answers against them, and the dashboard's
 * types are generated from them.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: 'number' | 'integer' | 'string') => ({ oneOf: [{ type }, { type: 'null' }] });
const percentage = { ...nullable('number'), description: 'null until a check falls in the window' };
const ISO_TIME = { type: 'string', format: 'date-time' } as const;
/** The series' head, shared by the hourly/daily history and the raw-check series. */
const series = (windows: readonly string[]): SchemaObject => ({
  type: 'object',
  required: ['domain_id', 'fqdn', 'window', 'bucket_seconds', 'points'],
  properties: {
    domain_id: { type: 'integer' },
    fqdn: { type: 'string' },
    window: { type: 'string', enum: [...windows] },
    bucket_seconds: { type: 'integer' },
    points: { type: 'array', items: ref('UptimeHistoryPoint') },
  },
});

export const UPTIME_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  UptimeRecord: {
    type: 'object',
    required: [
      'domain_id',
      'fqdn',
      'is_up',
      'uptime_percentage_24h',
      'uptime_percentage_7d',
      'uptime_percentage_30d',
      'last_check_time',
      'last_response_time_ms',
      'current_status',
      'error',
      'monitor_enabled',
      'has_ip',
    ],
    properties: {
      domain_id: { type: 'integer' },
      fqdn: { type: 'string' },
      is_up: { type: 'boolean' },
      uptime_percentage_24h: percentage,
      uptime_percentage_7d: percentage,
      uptime_percentage_30d: percentage,
      last_check_time: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
      last_response_time_ms: nullable('integer'),
      current_status: { type: 'string', enum: ['operational', 'down', 'pending', 'no_ip', 'disabled'] },
      error: nullable('string'),
      monitor_enabled: { type: 'boolean' },
      has_ip: { type: 'boolean' },
    },
  },
  UptimeDomains: {
    type: 'object',
    required: ['domains'],
    properties: { domains: { type: 'array', items: ref('UptimeRecord') } },
  },
  UptimeDashboard: {
    type: 'object',
    required: [
      'overall_uptime_24h',
      'overall_uptime_7d',
      'overall_uptime_30d',
      'domains_monitored',
      'domains_up',
      'domains_down',
      'average_response_time_ms',
    ],
    properties: {
      overall_uptime_24h: percentage,
      overall_uptime_7d: percentage,
      overall_uptime_30d: percentage,
      domains_monitored: { type: 'integer' },
      domains_up: { type: 'integer' },
      domains_down: { type: 'integer' },
      average_response_time_ms: nullable('integer'),
    },
  },
  UptimeLimits: {
    type: 'object',
    required: ['plan', 'monitor_limit', 'monitors_enabled'],
    properties: {
      plan: { type: 'string', enum: Object.keys(MONITOR_LIMITS) },
      monitor_limit: { type: 'integer' },
      monitors_enabled: { type: 'integer' },
    },
  },
  UptimeHistoryPoint: {
    type: 'object',
    required: ['at', 'checks', 'uptime_percentage', 'avg_response_time_ms'],
    properties: {
      at: { ...ISO_TIME, description: 'start of the bucket (UTC)' },
      checks: { type: 'integer' },
      uptime_percentage: { ...nullable('number'), description: 'null when no check fell in the bucket' },
      avg_response_time_ms: nullable('integer'),
    },
  },
  UptimeHistory: series(HISTORY_WINDOWS),
  UptimeIncident: {
    type: 'object',
    required: ['started_at', 'ended_at', 'duration_seconds', 'failed_checks', 'error'],
    properties: {
      started_at: ISO_TIME,
      ended_at: { oneOf: [ISO_TIME, { type: 'null' }], description: 'null while the host is still down' },
      duration_seconds: { type: 'integer' },
      failed_checks: { type: 'integer' },
      error: nullable('string'),
    },
  },
  UptimeChecks: {
    allOf: [
      series(CHECK_WINDOWS),
      {
        type: 'object',
        required: ['ports', 'last_port', 'incidents', 'complete'],
        properties: {
          ports: { type: 'array', items: { type: 'integer' }, description: 'the ports a check tries, in order' },
          last_port: { ...nullable('integer'), description: 'the port that answered the last check, or last tried' },
          incidents: { type: 'array', items: ref('UptimeIncident') },
          complete: { type: 'boolean', description: 'false when the window held more checks than one answer reads' },
        },
      },
    ],
  },
};

/** operationId → status → the schema of its body. */
export const UPTIME_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  UptimeController_domain: { '200': 'UptimeRecord' },
  UptimeController_domains: { '200': 'UptimeDomains' },
  UptimeController_dashboard: { '200': 'UptimeDashboard' },
  UptimeController_limits: { '200': 'UptimeLimits' },
  UptimeController_history: { '200': 'UptimeHistory' },
  UptimeController_checks: { '200': 'UptimeChecks' },
};
