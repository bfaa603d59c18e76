import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** Response bodies of the history endpoints (contract §19) for /openapi.json; `test/history.e2e-spec.ts` validates real answers against them. */
const nullableStrings = { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] };
const nullableInteger = { oneOf: [{ type: 'integer' }, { type: 'null' }] };
const scalar = { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const HISTORY_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  RecordChange: {
    type: 'object',
    required: ['subname', 'type', 'before', 'after'],
    properties: {
      subname: { type: 'string' },
      type: { type: 'string' },
      before: nullableStrings,
      after: nullableStrings,
      before_ttl: nullableInteger,
      after_ttl: nullableInteger,
    },
  },
  FieldChange: {
    type: 'object',
    required: ['field', 'before', 'after'],
    properties: { field: { type: 'string', enum: ['ipv4', 'ipv6', 'ttl'] }, before: scalar, after: scalar },
  },
  SettingChange: {
    type: 'object',
    required: ['field', 'before', 'after'],
    description: 'API keys, certificates, email-auth settings: a field the change set (secrets redacted)',
    properties: { field: { type: 'string' }, before: {}, after: {} },
  },
  HistoryChange: {
    type: 'object',
    required: ['id', 'type', 'occurred_at', 'actor', 'source_ip', 'correlation_id', 'changes'],
    properties: {
      id: { type: 'string', description: 'the event id (as in the audit log and webhook deliveries)' },
      type: {
        type: 'string',
        description:
          'zones and hosts: zone_imported, records_changed, restored, zone_verified, zone_deleted, host_created, ' +
          'address_updated, ttl_updated, host_deleted; API keys, certificates and email-auth settings: the event type in ' +
          'snake case (api_key_created, certificate_issued, spf_configured, …)',
      },
      occurred_at: { type: 'string', format: 'date-time' },
      actor: {
        type: 'object',
        required: ['type', 'id', 'name'],
        properties: {
          type: { type: 'string', enum: ['user', 'api_key', 'system', 'operator'] },
          id: { oneOf: [{ type: 'string' }, { type: 'null' }] },
          name: { oneOf: [{ type: 'string' }, { type: 'null' }] },
        },
      },
      source_ip: { oneOf: [{ type: 'string' }, { type: 'null' }] },
      correlation_id: { oneOf: [{ type: 'string' }, { type: 'null' }] },
      changes: { type: 'array', items: { anyOf: [ref('RecordChange'), ref('FieldChange'), ref('SettingChange')] } },
      restored_from: { type: 'string', format: 'date-time', description: 'restores only: the as_of brought back' },
    },
  },
  HistoryPage: {
    type: 'object',
    required: ['data', 'next_cursor'],
    properties: {
      data: { type: 'array', items: ref('HistoryChange') },
      next_cursor: { oneOf: [{ type: 'string' }, { type: 'null' }] },
    },
  },
  ResolvedRRset: {
    type: 'object',
    required: ['name', 'type', 'ttl', 'records'],
    properties: {
      name: { type: 'string', description: 'owner, fully qualified, no trailing dot' },
      type: { type: 'string' },
      ttl: { type: 'integer' },
      records: { type: 'array', items: { type: 'string' } },
    },
  },
  ResolveAnswer: {
    type: 'object',
    required: ['rcode', 'answer', 'authority'],
    properties: {
      rcode: { type: 'string', enum: ['NOERROR', 'NXDOMAIN'] },
      answer: { type: 'array', items: ref('ResolvedRRset') },
      authority: { type: 'array', items: ref('ResolvedRRset'), description: 'NXDOMAIN and NODATA: the SOA' },
    },
  },
  RestoredZone: {
    type: 'object',
    required: ['name', 'records'],
    properties: {
      name: { type: 'string' },
      records: {
        type: 'array',
        items: {
          type: 'object',
          required: ['subname', 'type', 'ttl', 'records'],
          properties: {
            subname: { type: 'string' },
            type: { type: 'string' },
            ttl: { type: 'integer' },
            records: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  },
};

export const HISTORY_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  HistoryController_zoneHistory: { '200': 'HistoryPage' },
  HistoryController_hostHistory: { '200': 'HistoryPage' },
  HistoryController_keyHistory: { '200': 'HistoryPage' },
  HistoryController_certificateHistory: { '200': 'HistoryPage' },
  HistoryController_emailAuthHistory: { '200': 'HistoryPage' },
  HistoryController_resolve: { '200': 'ResolveAnswer' },
  HistoryController_restoreZone: { '200': 'RestoredZone' },
};
