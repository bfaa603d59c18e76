import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { MONITOR_LIMITS } from '../domain/monitor.decider';

/**
 * Response bodies of the uptime reads (contract §6) for /openapi.json, as `uptimeRecord`,
 * `UptimeQueries` (uptime.queries.ts) and `dashboard` (domain/status.ts) build them;
 * test/management-openapi.e2e-spec.ts validates real answers against them, and the dashboard's
 * types are generated from them.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: 'number' | 'integer' | 'string') => ({ oneOf: [{ type }, { type: 'null' }] });
const percentage = { ...nullable('number'), description: 'null until a check falls in the window' };

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
};

/** operationId → status → the schema of its body. */
export const UPTIME_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  UptimeController_domain: { '200': 'UptimeRecord' },
  UptimeController_domains: { '200': 'UptimeDomains' },
  UptimeController_dashboard: { '200': 'UptimeDashboard' },
  UptimeController_limits: { '200': 'UptimeLimits' },
};
