/**
 * Shapes of the email-authentication API (contract §7, docs/email-auth-dashboard-reads.md) as the
 * dashboard uses them: from the service's /openapi.json (../../api/schema.ts).
 */
import type { Body, Schema } from '../../api/schema';

export type DmarcPolicy = Schema<'DmarcPolicy'>;
export type StageName = Schema<'DmarcStage'>;

export type DmarcSettings = Schema<'DmarcSettings'>;

export type SpfAll = Schema<'SpfAll'>;

/** SPF terms: contract §7's include/ip4/ip6/all, then a, mx (`@` is the zone itself), exists and redirect. */
export type SpfFields = Schema<'SpfFields'>;

/** What GET …/domains/{zone} and every settings change answer (`generated_key` only from PUT …/dkim with generate). */
export type EmailAuthSettings = Schema<'EmailAuthSettings'>;

export type LiveRecords = Body<'EmailAuthDashboardController_liveRecords'>;

export type ZoneEvent = Body<'EmailAuthDashboardController_events'>['events'][number];

export type Progression = Schema<'DmarcProgression'>;

export type Recommendation = Schema<'DmarcRecommendation'>;

export type Blocker = Recommendation['blockers'][number];

export type Advanced = Schema<'DmarcAdvanced'>;

export type NightPoint = Body<'EmailAuthDashboardController_nights'>['nights'][number];
