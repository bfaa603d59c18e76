/**
 * Shapes of the email-authentication API (contract §7, docs/email-auth-dashboard-reads.md) as the
 * dashboard uses them: from the service's /openapi.json where it describes them (./schema.ts).
 */
import type { Body } from '../../api/schema';

export type DmarcPolicy = 'none' | 'quarantine' | 'reject';
export type StageName = 'monitoring' | 'quarantine_partial' | 'quarantine_full' | 'reject_partial' | 'reject_full';

export interface DmarcSettings {
  policy: DmarcPolicy;
  subdomain_policy: DmarcPolicy | null;
  percentage: number;
  rua: string[];
  ruf: string[];
  adkim: 'r' | 's';
  aspf: 'r' | 's';
  fo: string;
}

export type SpfAll = '-all' | '~all' | '?all';

/** SPF terms: contract §7's include/ip4/ip6/all, then a, mx (`@` is the zone itself), exists and redirect (all null only beside redirect). */
export interface SpfFields {
  include: string[];
  ip4: string[];
  ip6: string[];
  all: SpfAll | null;
  a: string[];
  mx: string[];
  exists: string[];
  redirect: string | null;
}

export interface EmailAuthSettings {
  zone: string;
  dmarc: DmarcSettings | null;
  spf: (SpfFields & { dns_lookups: number }) | null;
  /** The SPF record the zone serves at its apex now (imported, or edited among the zone's records), read into the fields. */
  published_spf: { record: string; settings: SpfFields; unsupported: string[] } | null;
  dkim: {
    selector: string;
    key_type: string;
    key_bits: number;
    public_key: string;
    generated: boolean;
    created_at: string;
  }[];
  mta_sts: {
    mode: 'enforce' | 'testing' | 'none';
    mx: string[];
    max_age: number;
    id: string;
    policy_url: string;
  } | null;
  tls_rpt: { rua: string[] } | null;
  bimi: { logo_url: string; vmc_url: string | null } | null;
  records: { name: string; type: 'TXT'; value: string }[];
  warnings: string[];
  generated_key?: { selector: string; private_key: string; public_key: string; key_bits: number };
}

export type LiveRecords = Body<'EmailAuthDashboardController_liveRecords'>;

export type ZoneEvent = Body<'EmailAuthDashboardController_events'>['events'][number];

export interface Progression {
  zone: string;
  current_stage: StageName;
  policy: DmarcPolicy;
  percentage: number;
  days_at_current_stage: number;
  recommended_min_days: number;
  messages_at_stage: number;
  pass_rate_at_stage: number;
  entered_at: string;
  stage_history: {
    stage: StageName;
    policy: DmarcPolicy;
    percentage: number;
    entered_at: string;
    exited_at: string;
    pass_rate: number;
    messages: number;
    days: number;
  }[];
}

export type Blocker = 'insufficient_data' | 'low_pass_rate' | 'min_days_not_met';

export interface Recommendation {
  recommendation: 'ready_advance' | 'investigate' | 'keep_monitoring' | 'need_more_data' | 'full_enforcement';
  reason: string;
  next_stage: StageName | null;
  next_config: { policy: DmarcPolicy; percentage: number } | null;
  ready_to_advance: boolean;
  blockers: Blocker[];
}

export type NightPoint = Body<'EmailAuthDashboardController_nights'>['nights'][number];
