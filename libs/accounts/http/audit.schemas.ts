import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Audit entries (contract §15, §19) for /openapi.json, as `auditEntryOf` (domain/audit-chain.ts)
 * builds them: the page of `GET /account/audit` and each line of its export, which adds the hash
 * chain. test/management-openapi.e2e-spec.ts validates real pages against them, and the
 * dashboard's types are generated from them.
 */
const nullableString = (description?: string) => ({
  anyOf: [{ type: 'string' }, { type: 'null' }],
  ...(description ? { description } : {}),
});

const ENTRY_PROPERTIES = {
  id: { type: 'string', description: 'The event id' },
  type: { type: 'string' },
  occurred_at: { type: 'string', format: 'date-time' },
  stream: { type: 'string' },
  revision: { type: 'integer' },
  actor: nullableString('`user:<id>`, `key:<uuid>`, `system`, …'),
  source_ip: nullableString(),
  correlation_id: nullableString(),
  data: { description: 'The event’s data, secrets redacted' },
};

/** An export line: the entry and its link in the account's hash chain. */
export const EXPORT_ENTRY_PROPERTIES = {
  ...ENTRY_PROPERTIES,
  prev_hash: nullableString('The account’s previous entry’s hash; null for its first ever entry'),
  hash: {
    type: 'string',
    description: 'Hex SHA-256 of this entry without `hash` (with `prev_hash`) as RFC 8785 canonical JSON',
  },
};

export const AUDIT_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  AuditEntry: {
    type: 'object',
    required: Object.keys(ENTRY_PROPERTIES),
    properties: {
      ...ENTRY_PROPERTIES,
      data: { ...ENTRY_PROPERTIES.data, type: 'object', additionalProperties: true },
    },
  },
  AuditPage: {
    type: 'object',
    required: ['data', 'next_cursor'],
    properties: {
      data: { type: 'array', items: { $ref: '#/components/schemas/AuditEntry' } },
      next_cursor: nullableString('older entries: pass as cursor='),
    },
  },
};

/** operationId → status → the schema of its body. */
export const AUDIT_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  AccountsController_audit: { '200': 'AuditPage' },
};
