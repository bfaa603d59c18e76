import { API_KEY_EVENT_TYPES } from '../../api-keys/domain/api-key.events';
import { CERTIFICATE_MILESTONE_TYPES } from '../../certificates/domain/certificate.events';
import { EMAIL_AUTH_EVENT_TYPES } from '../../email-auth/domain/email-auth.events';
import { redact } from '../../shared/redact';

/**
 * History of the resources whose state is settings rather than records (issue 26: email-auth
 * settings, API keys, certificates): each change is a list of `{field, before, after}` over
 * the fields the event sets, as the resource's owner sees them (secrets redacted, PEM bodies
 * and process bookkeeping left out). No as_of and no restore for these (contract §19:
 * restores cover records and host addresses only).
 */
export interface SettingChange {
  field: string;
  before: unknown;
  after: unknown;
}

export type SettingsKind = 'api_key' | 'certificate' | 'email_auth';

/** A certificate's life as its owner sees it (the audit log's milestones). */
export const CERTIFICATE_HISTORY_TYPES = CERTIFICATE_MILESTONE_TYPES;
/** The nightly wizard metrics are the job's telemetry, not a change of settings. */
export const EMAIL_AUTH_HISTORY_TYPES = EMAIL_AUTH_EVENT_TYPES.filter((t) => t !== 'DmarcStageMetricsRecorded');
export const SETTINGS_HISTORY_TYPES: readonly string[] = [
  ...API_KEY_EVENT_TYPES,
  ...CERTIFICATE_HISTORY_TYPES,
  ...EMAIL_AUTH_HISTORY_TYPES,
];

const KINDS = new Map<string, SettingsKind>([
  ...API_KEY_EVENT_TYPES.map((t) => [t, 'api_key'] as const),
  ...CERTIFICATE_HISTORY_TYPES.map((t) => [t, 'certificate'] as const),
  ...EMAIL_AUTH_HISTORY_TYPES.map((t) => [t, 'email_auth'] as const),
]);

/** Identity, time and bulky fields: what a reviewer learns from the change's other columns, or nothing. */
const LEFT_OUT = new Set([
  'key_id',
  'certificate_id',
  'account_id',
  'zone_id',
  'zone',
  'at',
  'created_at',
  'attempt',
  'certificate_pem',
  'chain_pem',
  'history_entry',
  'key_hash',
]);

/** `ApiKeyCreated` → `api_key_created`. */
export const changeTypeOf = (eventType: string) => eventType.replace(/(?<=[a-z0-9])(?=[A-Z])/g, '_').toLowerCase();

/** The subject (`api_key:<id>`, `certificate:<id>`, `email_auth:<account>:<zone>`) an event belongs to, and its name. */
export function settingsSubjectOf(
  type: string,
  data: Record<string, unknown>,
  accountId: number,
): { kind: SettingsKind; subject: string; name: string } | null {
  const kind = KINDS.get(type);
  if (!kind) return null;
  if (kind === 'api_key') return { kind, subject: `api_key:${String(data.key_id)}`, name: String(data.key_id) };
  if (kind === 'certificate')
    return { kind, subject: `certificate:${String(data.certificate_id)}`, name: String(data.certificate_id) };
  return { kind, subject: `email_auth:${accountId}:${String(data.zone)}`, name: String(data.zone) };
}

/** The fields an event sets, by name. */
export function fieldsSetBy(type: string, data: Record<string, unknown>): Record<string, unknown> {
  const shown = redact(data);
  switch (type) {
    case 'ApiKeyCreated':
      return { ...plain(shown), is_active: true };
    case 'ApiKeyDeactivated':
      return { is_active: false };
    case 'CertificateRequested':
      return { ...plain(shown), status: 'pending' };
    case 'RenewalRequested':
      return { status: 'renewing', renewal_trigger: shown.trigger };
    case 'CertificateIssued':
      return { ...plain(shown), status: 'issued' };
    case 'IssuanceFailed':
      return { status: 'failed', error: shown.error };
    case 'CertificateExpired':
      return { status: 'expired' };
    case 'CertificateRevoked':
      return { status: 'revoked' };
    case 'CertificateDeleted':
      return { status: 'deleted' };
    // DKIM keys are one setting per selector.
    case 'DkimKeySet': {
      // The event's `key` field is the key record (its secret parts redacted within), not a secret itself.
      const key = data.key as { selector: string };
      return { [`dkim.${key.selector}`]: redact(key) };
    }
    case 'DkimKeyRemoved':
      return { [`dkim.${String(shown.selector)}`]: null };
    case 'DmarcPolicyChanged':
      return {
        'dmarc.policy': (shown.to as { policy: string }).policy,
        'dmarc.percentage': (shown.to as { percentage: number }).percentage,
      };
    case 'DmarcWizardStarted':
    case 'DmarcStageAdvanced':
      return {
        'dmarc_wizard.stage': shown.stage ?? shown.to_stage,
        'dmarc.policy': shown.policy,
        'dmarc.percentage': shown.percentage,
      };
    default:
      return plain(shown);
  }
}

function plain(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([k]) => !LEFT_OUT.has(k)));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The settings after `set` is applied to `before`, and the fields that changed (in the order set). */
export function applySettings(
  before: Record<string, unknown>,
  set: Record<string, unknown>,
): { after: Record<string, unknown>; changes: SettingChange[] } {
  const after = { ...before, ...set };
  const changes = Object.entries(set)
    .filter(([field, value]) => !same(before[field], value))
    .map(([field, value]) => ({ field, before: before[field] ?? null, after: value ?? null }));
  return { after, changes };
}
