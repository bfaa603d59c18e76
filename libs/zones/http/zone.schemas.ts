import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Response bodies of the zone endpoints (contract §5) for /openapi.json, as `zoneView` and
 * `recordsView` (zone.queries.ts) build them; test/management-openapi.e2e-spec.ts validates real
 * answers against them, and the dashboard's types are generated from them.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ISO_TIME = { type: 'string', format: 'date-time' } as const;

export const ZONE_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  RRset: {
    type: 'object',
    required: ['subname', 'type', 'ttl', 'records'],
    properties: {
      subname: { type: 'string', description: "'' is the apex" },
      type: { type: 'string' },
      ttl: { type: 'integer' },
      records: { type: 'array', items: { type: 'string' } },
    },
  },
  ZoneView: {
    type: 'object',
    required: ['id', 'name', 'status', 'verification', 'nameservers', 'created_at', 'verified_at'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      status: { type: 'string', enum: ['pending_verification', 'verified'] },
      verification: {
        type: 'object',
        required: ['record_name', 'record_value'],
        properties: { record_name: { type: 'string' }, record_value: { type: 'string' } },
      },
      nameservers: { type: 'array', items: { type: 'string' } },
      created_at: ISO_TIME,
      verified_at: { oneOf: [ISO_TIME, { type: 'null' }] },
    },
  },
  ZoneDetail: {
    allOf: [
      ref('ZoneView'),
      {
        type: 'object',
        required: ['records'],
        properties: { records: { type: 'array', items: ref('RRset') } },
      },
    ],
  },
  ZoneList: { type: 'object', required: ['zones'], properties: { zones: { type: 'array', items: ref('ZoneView') } } },
  ZoneRecords: {
    type: 'object',
    required: ['records'],
    properties: { records: { type: 'array', items: ref('RRset') } },
  },
};

/** operationId → status → the schema of its body. */
export const ZONE_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  ZonesController_create: { '201': 'ZoneView' },
  ZonesController_list: { '200': 'ZoneList' },
  ZonesController_get: { '200': 'ZoneDetail' },
  ZonesController_verify: { '200': 'ZoneView' },
  ZonesController_records: { '200': 'ZoneRecords' },
  ZonesController_upsert: { '200': 'ZoneRecords' },
};
