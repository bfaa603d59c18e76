import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { MAX_STAGE_HISTORY, STAGES } from '../domain/stages';

/**
 * Response bodies of the email-authentication settings and the DMARC wizard (contract §7) for
 * /openapi.json, as `settingsView`, `progressionView` (application/email-auth.queries.ts),
 * `recommend` (domain/stages.ts) and `DmarcWizardController.advance` build them;
 * test/management-openapi.e2e-spec.ts validates real answers against them, and the dashboard's
 * types are generated from them.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const orNull = (schema: SchemaObject | { $ref: string }) => ({ oneOf: [schema, { type: 'null' }] });
const strings = { type: 'array', items: { type: 'string' } } as const;
const ISO_TIME = { type: 'string', format: 'date-time' } as const;
const alignment: SchemaObject = { type: 'string', enum: ['r', 's'] };
const percentage = { type: 'integer', minimum: 0, maximum: 100 } as const;
const passRate = { type: 'number', minimum: 0, maximum: 100, description: 'Percent of reported messages' } as const;

/** The SPF terms (contract §7's include/ip4/ip6/all, then the later a, mx, exists, redirect). */
const SPF_FIELDS: SchemaObject = {
  type: 'object',
  required: ['include', 'ip4', 'ip6', 'all', 'a', 'mx', 'exists', 'redirect'],
  properties: {
    include: strings,
    ip4: strings,
    ip6: strings,
    all: { ...orNull(ref('SpfAll')), description: 'null only beside redirect' },
    a: { ...strings, description: '`@` is the zone itself' },
    mx: { ...strings, description: '`@` is the zone itself' },
    exists: strings,
    redirect: orNull({ type: 'string' }),
  },
};

export const EMAIL_AUTH_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  DmarcPolicy: { type: 'string', enum: ['none', 'quarantine', 'reject'] },
  DmarcStage: { type: 'string', enum: STAGES.map((s) => s.name) },
  SpfAll: { type: 'string', enum: ['-all', '~all', '?all'] },
  DmarcSettings: {
    type: 'object',
    required: ['policy', 'subdomain_policy', 'percentage', 'rua', 'ruf', 'adkim', 'aspf', 'fo'],
    properties: {
      policy: ref('DmarcPolicy'),
      subdomain_policy: orNull(ref('DmarcPolicy')),
      percentage,
      rua: strings,
      ruf: strings,
      adkim: alignment,
      aspf: alignment,
      fo: { type: 'string' },
    },
  },
  SpfFields: SPF_FIELDS,
  GeneratedDkimKey: {
    type: 'object',
    required: ['selector', 'private_key', 'public_key', 'key_bits'],
    properties: {
      selector: { type: 'string' },
      private_key: { type: 'string', description: 'PEM: shown once, never stored' },
      public_key: { type: 'string' },
      key_bits: { type: 'integer' },
    },
  },
  EmailAuthSettings: {
    type: 'object',
    required: ['zone', 'dmarc', 'spf', 'published_spf', 'dkim', 'mta_sts', 'tls_rpt', 'bimi', 'records', 'warnings'],
    properties: {
      zone: { type: 'string' },
      dmarc: orNull(ref('DmarcSettings')),
      spf: orNull({
        allOf: [
          ref('SpfFields'),
          { type: 'object', required: ['dns_lookups'], properties: { dns_lookups: { type: 'integer' } } },
        ],
      }),
      published_spf: {
        ...orNull({
          type: 'object',
          required: ['record', 'settings', 'unsupported'],
          properties: {
            record: { type: 'string' },
            settings: ref('SpfFields'),
            unsupported: { ...strings, description: 'Terms the fields cannot hold: saving drops them' },
          },
        }),
        description: 'The SPF record the zone serves at its apex now, read into the fields',
      },
      dkim: {
        type: 'array',
        items: {
          type: 'object',
          required: ['selector', 'key_type', 'key_bits', 'public_key', 'generated', 'created_at'],
          properties: {
            selector: { type: 'string' },
            key_type: { type: 'string', enum: ['rsa', 'ed25519'] },
            key_bits: { type: 'integer' },
            public_key: { type: 'string', description: 'Base64 DER SubjectPublicKeyInfo' },
            generated: { type: 'boolean' },
            created_at: ISO_TIME,
          },
        },
      },
      mta_sts: orNull({
        type: 'object',
        required: ['mode', 'mx', 'max_age', 'id', 'policy_url'],
        properties: {
          mode: { type: 'string', enum: ['enforce', 'testing', 'none'] },
          mx: strings,
          max_age: { type: 'integer' },
          id: { type: 'string' },
          policy_url: { type: 'string' },
        },
      }),
      tls_rpt: orNull({ type: 'object', required: ['rua'], properties: { rua: strings } }),
      bimi: orNull({
        type: 'object',
        required: ['logo_url', 'vmc_url'],
        properties: { logo_url: { type: 'string' }, vmc_url: orNull({ type: 'string' }) },
      }),
      records: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'type', 'value'],
          properties: { name: { type: 'string' }, type: { type: 'string', enum: ['TXT'] }, value: { type: 'string' } },
        },
      },
      warnings: strings,
      generated_key: {
        ...ref('GeneratedDkimKey'),
        description: 'Only in the answer of PUT …/dkim/{selector} with "generate": true',
      },
    },
  },
  DmarcProgression: {
    type: 'object',
    required: [
      'zone',
      'current_stage',
      'policy',
      'percentage',
      'days_at_current_stage',
      'recommended_min_days',
      'messages_at_stage',
      'pass_rate_at_stage',
      'entered_at',
      'stage_history',
    ],
    properties: {
      zone: { type: 'string' },
      current_stage: ref('DmarcStage'),
      policy: ref('DmarcPolicy'),
      percentage,
      days_at_current_stage: { type: 'integer' },
      recommended_min_days: { type: 'integer' },
      messages_at_stage: { type: 'integer' },
      pass_rate_at_stage: passRate,
      entered_at: ISO_TIME,
      stage_history: {
        type: 'array',
        description: `The stages left, oldest first (the last ${MAX_STAGE_HISTORY})`,
        items: {
          type: 'object',
          required: ['stage', 'policy', 'percentage', 'entered_at', 'exited_at', 'pass_rate', 'messages', 'days'],
          properties: {
            stage: ref('DmarcStage'),
            policy: ref('DmarcPolicy'),
            percentage,
            entered_at: ISO_TIME,
            exited_at: ISO_TIME,
            pass_rate: passRate,
            messages: { type: 'integer' },
            days: { type: 'integer' },
          },
        },
      },
    },
  },
  DmarcRecommendation: {
    type: 'object',
    required: ['recommendation', 'reason', 'next_stage', 'next_config', 'ready_to_advance', 'blockers'],
    properties: {
      recommendation: {
        type: 'string',
        enum: ['ready_advance', 'investigate', 'keep_monitoring', 'need_more_data', 'full_enforcement'],
      },
      reason: { type: 'string' },
      next_stage: orNull(ref('DmarcStage')),
      next_config: orNull({
        type: 'object',
        required: ['policy', 'percentage'],
        properties: { policy: ref('DmarcPolicy'), percentage },
      }),
      ready_to_advance: { type: 'boolean' },
      blockers: {
        type: 'array',
        items: { type: 'string', enum: ['insufficient_data', 'low_pass_rate', 'min_days_not_met'] },
      },
    },
  },
  DmarcAdvanced: {
    type: 'object',
    required: ['message', 'new_stage', 'policy', 'percentage'],
    properties: {
      message: { type: 'string' },
      new_stage: ref('DmarcStage'),
      policy: ref('DmarcPolicy'),
      percentage,
    },
  },
};

/** operationId → status → the schema of its body. */
export const EMAIL_AUTH_OPERATION_RESPONSES: Record<string, Record<string, string>> = {
  EmailAuthSettingsController_get: { '200': 'EmailAuthSettings' },
  EmailAuthSettingsController_dmarc: { '200': 'EmailAuthSettings' },
  EmailAuthSettingsController_spf: { '200': 'EmailAuthSettings' },
  EmailAuthSettingsController_dkim: { '200': 'EmailAuthSettings' },
  EmailAuthSettingsController_mtaSts: { '200': 'EmailAuthSettings' },
  EmailAuthSettingsController_tlsRpt: { '200': 'EmailAuthSettings' },
  EmailAuthSettingsController_bimi: { '200': 'EmailAuthSettings' },
  DmarcWizardController_progression: { '200': 'DmarcProgression' },
  DmarcWizardController_recommendation: { '200': 'DmarcRecommendation' },
  DmarcWizardController_advance: { '200': 'DmarcAdvanced' },
};
