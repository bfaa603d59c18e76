import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Response bodies of the dynamic-DNS host endpoints (contract §4) for /openapi.json, as
 * `domainView` (domain.queries.ts) builds them; test/management-openapi.e2e-spec.ts validates
 * real answers against them, and the dashboard's types are generated from them.
 */
const address = { oneOf: [{ type: 'string' }, { type: 'null' }] };

export const DOMAIN_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  DdnsHost: {
    type: 'object',
    required: [
      'id',
      'fqdn',
      'record_type',
      'record_ip',
      'ttl',
      'monitor_enabled',
      'addresses',
      'created_at',
      'updated_at',
    ],
    properties: {
      id: { type: 'integer' },
      fqdn: { type: 'string' },
      record_type: { type: 'string', enum: ['A', 'AAAA'] },
      record_ip: { ...address, description: "the address of the record type's family" },
      ttl: { type: 'integer' },
      monitor_enabled: { type: 'boolean' },
      addresses: {
        type: 'object',
        required: ['ipv4', 'ipv6'],
        description: 'both families (ddns.md, dual stack)',
        properties: { ipv4: address, ipv6: address },
      },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  },
  DdnsHostList: { type: 'array', items: { $ref: '#/components/schemas/DdnsHost' } },
};

/** operationId → status → the schema of its body. */
export const DOMAIN_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  DomainsController_create: { '201': 'DdnsHost' },
  DomainsController_get: { '200': 'DdnsHost' },
  DomainsController_update: { '200': 'DdnsHost' },
  DomainsController_list: { '200': 'DdnsHostList' },
};
