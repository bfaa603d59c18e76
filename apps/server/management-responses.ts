import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { AUDIT_OPERATION_RESPONSES, AUDIT_RESPONSE_SCHEMAS } from '../../libs/accounts/http/audit.schemas';
import { SESSION_OPERATION_RESPONSES, SESSION_RESPONSE_SCHEMAS } from '../../libs/accounts/http/session.schemas';
import { DOMAIN_OPERATION_RESPONSES, DOMAIN_RESPONSE_SCHEMAS } from '../../libs/domains/http/domain.schemas';
import { HISTORY_OPERATION_RESPONSES, HISTORY_RESPONSE_SCHEMAS } from '../../libs/history/http/history.schemas';
import { UPTIME_OPERATION_RESPONSES, UPTIME_RESPONSE_SCHEMAS } from '../../libs/uptime/http/uptime.schemas';
import { ZONE_OPERATION_RESPONSES, ZONE_RESPONSE_SCHEMAS } from '../../libs/zones/http/zone.schemas';
import { DNSSEC_OPERATION_RESPONSES, DNSSEC_RESPONSE_SCHEMAS } from '../../libs/dnssec/http/dnssec.schemas';
import {
  CERTIFICATE_OPERATION_RESPONSES,
  CERTIFICATE_RESPONSE_SCHEMAS,
} from '../../libs/certificates/http/certificate.schemas';
import {
  TWO_FACTOR_OPERATION_RESPONSES,
  TWO_FACTOR_RESPONSE_SCHEMAS,
} from '../../libs/two-factor/http/two-factor.schemas';
import {
  DNS_ANALYTICS_OPERATION_RESPONSES,
  DNS_ANALYTICS_RESPONSE_SCHEMAS,
} from '../../libs/dns-analytics/http/dns-analytics.schemas';
import {
  EMAIL_AUTH_OPERATION_RESPONSES,
  EMAIL_AUTH_RESPONSE_SCHEMAS,
} from '../../libs/email-auth/http/email-auth.schemas';

/**
 * Response bodies of the most used management endpoints, for /openapi.json. The views are
 * plain objects built by the query classes (no response DTO classes exist to decorate), so
 * they are written here once; `test/management-openapi.e2e-spec.ts` validates the real
 * responses of each listed operation against the published document, so a drift fails there.
 */
const ISO_TIME = { type: 'string', format: 'date-time' } as const;

export const RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  ...HISTORY_RESPONSE_SCHEMAS,
  ...DOMAIN_RESPONSE_SCHEMAS,
  ...ZONE_RESPONSE_SCHEMAS,
  ...UPTIME_RESPONSE_SCHEMAS,
  ...AUDIT_RESPONSE_SCHEMAS,
  ...SESSION_RESPONSE_SCHEMAS,
  AccountView: {
    type: 'object',
    required: ['id', 'username', 'email', 'plan', 'email_auth', 'two_factor_enabled', 'disabled', 'created_at'],
    properties: {
      id: { type: 'integer' },
      username: { type: 'string' },
      email: { type: 'string' },
      plan: { type: 'string', enum: ['free', 'plus', 'pro', 'elite'] },
      email_auth: {
        type: 'object',
        required: ['tier', 'domains'],
        properties: {
          tier: { type: 'string', enum: ['none', 'standard', 'enterprise'] },
          domains: { type: 'array', items: { type: 'string' } },
        },
      },
      two_factor_enabled: { type: 'boolean' },
      disabled: { type: 'boolean' },
      created_at: ISO_TIME,
    },
  },
  ApiKeyView: {
    type: 'object',
    required: ['id', 'name', 'created_at', 'last_used_at', 'is_active', 'access', 'expires_at'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      created_at: ISO_TIME,
      last_used_at: { oneOf: [ISO_TIME, { type: 'null' }] },
      is_active: { type: 'boolean' },
      access: { type: 'string', enum: ['account', 'email_auth:read'] },
      expires_at: { oneOf: [ISO_TIME, { type: 'null' }] },
      domains: {
        type: 'array',
        items: { type: 'string' },
        description: 'email_auth:read keys: the domains it sees (empty: all)',
      },
      failure_report_subjects: { type: 'boolean', description: 'email_auth:read keys' },
    },
  },
  ApiKeyList: {
    type: 'object',
    required: ['keys'],
    properties: { keys: { type: 'array', items: { $ref: '#/components/schemas/ApiKeyView' } } },
  },
  CreatedApiKey: {
    allOf: [
      { $ref: '#/components/schemas/ApiKeyView' },
      {
        type: 'object',
        required: ['user_id', 'key'],
        properties: {
          user_id: { type: 'integer' },
          key: { type: 'string', description: 'ak_…: shown once, never again' },
        },
      },
    ],
  },
  Health: {
    type: 'object',
    required: ['status', 'event_store', 'read_store', 'projections'],
    properties: {
      status: { type: 'string', enum: ['ok', 'degraded'] },
      event_store: {
        type: 'object',
        required: ['kind', 'status'],
        properties: { kind: { type: 'string' }, status: { type: 'string' } },
      },
      read_store: {
        type: 'object',
        required: ['kind', 'status'],
        properties: { kind: { type: 'string' }, status: { type: 'string' } },
      },
      projections: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'position', 'lag'],
          properties: { name: { type: 'string' }, position: {}, lag: { type: 'integer' } },
        },
      },
    },
  },
  ...DNSSEC_RESPONSE_SCHEMAS,
  ...CERTIFICATE_RESPONSE_SCHEMAS,
  ...TWO_FACTOR_RESPONSE_SCHEMAS,
  ...DNS_ANALYTICS_RESPONSE_SCHEMAS,
  ...EMAIL_AUTH_RESPONSE_SCHEMAS,
};

/** operationId → status → the schema of its body. */
export const OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  AccountsController_register: { '201': 'AccountView' },
  AccountsController_account: { '200': 'AccountView' },
  ApiKeysController_list: { '200': 'ApiKeyList' },
  ApiKeysController_create: { '201': 'CreatedApiKey' },
  OpsController_health: { '200': 'Health', '503': 'Health' },
  ...HISTORY_OPERATION_RESPONSES,
  ...DOMAIN_OPERATION_RESPONSES,
  ...ZONE_OPERATION_RESPONSES,
  ...UPTIME_OPERATION_RESPONSES,
  ...AUDIT_OPERATION_RESPONSES,
  ...SESSION_OPERATION_RESPONSES,
  ...DNSSEC_OPERATION_RESPONSES,
  ...CERTIFICATE_OPERATION_RESPONSES,
  ...TWO_FACTOR_OPERATION_RESPONSES,
  ...DNS_ANALYTICS_OPERATION_RESPONSES,
  ...EMAIL_AUTH_OPERATION_RESPONSES,
};
