import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ALGORITHMS } from '../domain/dnssec.decider';

/**
 * The dnssec object of contract §17 for /openapi.json, as `dnssecView` (dnssec.queries.ts) builds
 * it for an account's zone and for the operator's dynamic-DNS zones; test/management-openapi.e2e-spec.ts
 * validates real answers against it, and the dashboard's type is generated from it.
 */
const ISO_TIME = { type: 'string', format: 'date-time' } as const;
const algorithm = { type: 'integer', enum: ALGORITHMS, description: '13 ECDSAP256SHA256, 15 ED25519' };

export const DNSSEC_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  DnssecKey: {
    type: 'object',
    required: ['key_tag', 'algorithm', 'flags', 'role', 'state', 'created_at'],
    properties: {
      key_tag: { type: 'integer' },
      algorithm,
      flags: { type: 'integer', description: '257 for a key signing the key set' },
      role: { type: 'string', enum: ['csk', 'ksk', 'zsk'] },
      state: { type: 'string', enum: ['published', 'active', 'retired', 'removed'] },
      created_at: ISO_TIME,
    },
  },
  Dnssec: {
    type: 'object',
    required: ['zone', 'enabled', 'state', 'algorithm', 'keys', 'ds', 'dnskey', 'cds_published', 'next_rollover_at'],
    properties: {
      zone: { type: 'string' },
      enabled: { type: 'boolean' },
      state: { type: 'string', enum: ['unsigned', 'signed', 'rolling', 'unsigning'] },
      algorithm,
      keys: { type: 'array', items: { $ref: '#/components/schemas/DnssecKey' } },
      ds: {
        type: 'array',
        items: { type: 'string' },
        description: 'the DS records the parent should hold, in presentation format',
      },
      dnskey: { type: 'array', items: { type: 'string' }, description: 'the DNSKEY records the zone serves' },
      cds_published: { type: 'boolean' },
      next_rollover_at: { oneOf: [ISO_TIME, { type: 'null' }], description: 'no scheduled rollover yet: null' },
    },
  },
};

/** operationId → status → the schema of its body. */
export const DNSSEC_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  DnssecController_get: { '200': 'Dnssec' },
  DnssecController_set: { '200': 'Dnssec' },
  DnssecController_rollover: { '202': 'Dnssec' },
  DnssecAdminController_get: { '200': 'Dnssec' },
  DnssecAdminController_set: { '200': 'Dnssec' },
  DnssecAdminController_rollover: { '202': 'Dnssec' },
};
