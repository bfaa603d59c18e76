import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Response bodies of the certificates API (contract §10) for /openapi.json, as `certificateView`
 * (certificate-read-model.ts) and `CertificateQueries` (certificate.queries.ts) build them;
 * test/management-openapi.e2e-spec.ts validates real answers against them, and the dashboard's
 * types are generated from them.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ISO_TIME = { type: 'string', format: 'date-time' } as const;
const nullable = (s: SchemaObject) => ({ oneOf: [s, { type: 'null' }] });

export const CERTIFICATE_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  Certificate: {
    type: 'object',
    required: [
      'id',
      'zone',
      'domain',
      'sans',
      'is_wildcard',
      'auto_renew',
      'status',
      'issued_at',
      'expires_at',
      'next_renewal_at',
      'serial',
      'created_at',
    ],
    properties: {
      id: { type: 'string', format: 'uuid' },
      zone: { type: 'string' },
      domain: { type: 'string' },
      sans: { type: 'array', items: { type: 'string' } },
      is_wildcard: { type: 'boolean' },
      auto_renew: { type: 'boolean' },
      status: { type: 'string', enum: ['pending', 'validating', 'issued', 'failed', 'expired', 'revoked'] },
      issued_at: nullable(ISO_TIME),
      expires_at: nullable(ISO_TIME),
      next_renewal_at: nullable(ISO_TIME),
      serial: nullable({ type: 'string' }),
      created_at: ISO_TIME,
    },
  },
  CertificateLimits: {
    type: 'object',
    required: ['max_certificates', 'current_count', 'wildcard_enabled', 'auto_renew_enabled'],
    properties: {
      max_certificates: { type: 'integer' },
      current_count: { type: 'integer', description: 'certificates holding a plan slot (pending to failed)' },
      wildcard_enabled: { type: 'boolean' },
      auto_renew_enabled: { type: 'boolean' },
    },
  },
  CertificateList: {
    type: 'object',
    required: ['certificates', 'limits'],
    properties: {
      certificates: { type: 'array', items: ref('Certificate') },
      limits: ref('CertificateLimits'),
    },
  },
  CertificateLog: {
    type: 'object',
    required: ['at', 'level', 'message'],
    properties: {
      at: ISO_TIME,
      level: { type: 'string', enum: ['info', 'warn', 'error'] },
      message: { type: 'string' },
    },
  },
  CertificateLogs: {
    type: 'object',
    required: ['logs'],
    properties: { logs: { type: 'array', items: ref('CertificateLog') } },
  },
  CertificateFiles: {
    type: 'object',
    required: ['certificate_pem', 'chain_pem', 'private_key_pem'],
    properties: {
      certificate_pem: { type: 'string' },
      chain_pem: { type: 'string' },
      private_key_pem: { type: 'string', description: 'unsealed for this answer only' },
    },
  },
};

/** operationId → status → the schema of its body. */
export const CERTIFICATE_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  CertificatesController_create: { '202': 'Certificate' },
  CertificatesController_list: { '200': 'CertificateList' },
  CertificatesController_get: { '200': 'Certificate' },
  CertificatesController_logs: { '200': 'CertificateLogs' },
  CertificatesController_download: { '200': 'CertificateFiles' },
  CertificatesController_renew: { '202': 'Certificate' },
  CertificatesController_autoRenew: { '200': 'Certificate' },
};
