import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Response bodies of the two-factor settings (contract §11) for /openapi.json, as the handlers
 * (two-factor.handlers.ts) and `TwoFactorQueries` build them; test/management-openapi.e2e-spec.ts
 * validates real answers against them, and the dashboard's types are generated from them.
 */
const backupCodes = { type: 'array', items: { type: 'string' }, description: 'shown once, never again' } as const;

export const TWO_FACTOR_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  TwoFactorSetup: {
    type: 'object',
    required: ['secret', 'qr_code', 'setup_token', 'otpauth_url'],
    properties: {
      secret: { type: 'string', description: 'base32' },
      qr_code: { type: 'string', description: 'a 256×256 PNG as a data: URL' },
      setup_token: { type: 'string', description: 'what POST /2fa/verify confirms' },
      otpauth_url: { type: 'string' },
    },
  },
  TwoFactorEnabled: {
    type: 'object',
    required: ['success', 'backup_codes'],
    properties: { success: { type: 'boolean', enum: [true] }, backup_codes: backupCodes },
  },
  TwoFactorStatus: {
    type: 'object',
    required: ['enabled', 'backup_codes_remaining'],
    properties: { enabled: { type: 'boolean' }, backup_codes_remaining: { type: 'integer' } },
  },
  TwoFactorDisabled: {
    type: 'object',
    required: ['success'],
    properties: { success: { type: 'boolean', enum: [true] } },
  },
  BackupCodes: { type: 'object', required: ['backup_codes'], properties: { backup_codes: backupCodes } },
};

/** operationId → status → the schema of its body. */
export const TWO_FACTOR_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  TwoFactorController_setup: { '200': 'TwoFactorSetup' },
  TwoFactorController_verify: { '200': 'TwoFactorEnabled' },
  TwoFactorController_status: { '200': 'TwoFactorStatus' },
  TwoFactorController_disable: { '200': 'TwoFactorDisabled' },
  TwoFactorController_regenerate: { '200': 'BackupCodes' },
};
