import { DomainEvent } from '../../shared/decider';
import { BimiSettings, DkimKey, DmarcSettings, MtaStsSettings, SpfSettings, TlsRptSettings } from './settings';
import { DmarcPolicy, StageHistoryEntry, StageName } from './stages';

/**
 * Facts of one zone's email-authentication stream `emailauth-<zone>`: its settings and
 * its DMARC wizard progression. No secret enters an event: a generated DKIM private key
 * is returned once and never stored.
 */
interface Base {
  zone: string;
  account_id: number;
  at: string;
}

export type DmarcConfigured = DomainEvent<'DmarcConfigured', Base & { dmarc: DmarcSettings }>;
/**
 * The `dmarc.policy.changed` fact of the email-auth event log (seed: Event types), from a
 * settings change (`source: settings`) or a wizard advance (`source: wizard`).
 */
export type DmarcPolicyChanged = DomainEvent<
  'DmarcPolicyChanged',
  Base & {
    source: 'settings' | 'wizard';
    from: { policy: DmarcPolicy; percentage: number } | null;
    to: { policy: DmarcPolicy; percentage: number };
    stage: StageName | null;
  }
>;
export type SpfConfigured = DomainEvent<'SpfConfigured', Base & { spf: SpfSettings; dns_lookups: number }>;
export type DkimKeySet = DomainEvent<'DkimKeySet', Base & { key: DkimKey }>;
export type DkimKeyRemoved = DomainEvent<'DkimKeyRemoved', Base & { selector: string }>;
export type MtaStsConfigured = DomainEvent<'MtaStsConfigured', Base & { mta_sts: MtaStsSettings }>;
export type TlsRptConfigured = DomainEvent<'TlsRptConfigured', Base & { tls_rpt: TlsRptSettings }>;
export type BimiConfigured = DomainEvent<'BimiConfigured', Base & { bimi: BimiSettings }>;
export type DmarcWizardStarted = DomainEvent<
  'DmarcWizardStarted',
  Base & { stage: StageName; policy: DmarcPolicy; percentage: number }
>;
export type DmarcStageAdvanced = DomainEvent<
  'DmarcStageAdvanced',
  Base & {
    from_stage: StageName;
    to_stage: StageName;
    policy: DmarcPolicy;
    percentage: number;
    history_entry: StageHistoryEntry;
  }
>;
/** The nightly job's figures for one zone and night (idempotent: one per night). */
export type DmarcStageMetricsRecorded = DomainEvent<
  'DmarcStageMetricsRecorded',
  Base & {
    night: string;
    window_from: string;
    window_to: string;
    messages: number;
    passing: number;
    pass_rate: number;
    days_at_stage: number;
  }
>;

export type EmailAuthEvent =
  | DmarcConfigured
  | DmarcPolicyChanged
  | SpfConfigured
  | DkimKeySet
  | DkimKeyRemoved
  | MtaStsConfigured
  | TlsRptConfigured
  | BimiConfigured
  | DmarcWizardStarted
  | DmarcStageAdvanced
  | DmarcStageMetricsRecorded;

export const EMAIL_AUTH_EVENT_TYPES: readonly EmailAuthEvent['type'][] = [
  'DmarcConfigured',
  'DmarcPolicyChanged',
  'SpfConfigured',
  'DkimKeySet',
  'DkimKeyRemoved',
  'MtaStsConfigured',
  'TlsRptConfigured',
  'BimiConfigured',
  'DmarcWizardStarted',
  'DmarcStageAdvanced',
  'DmarcStageMetricsRecorded',
];

export const emailAuthStream = (zone: string) => `emailauth-${zone}`;
