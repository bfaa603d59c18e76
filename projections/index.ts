import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { accountsProjection } from './accounts.projection';
import { apiKeysProjection } from './api-keys.projection';
import { auditProjection } from './audit.projection';
import { sessionsProjection } from './sessions.projection';
import { twoFactorProjection } from './two-factor.projection';
import { domainsProjection } from './domains.projection';
import { zonesProjection } from './zones.projection';
import { uptimeDomainsProjection } from './uptime-domains.projection';
import { emailAuthProjection } from './email-auth.projection';
import { dmarcReportsProjection } from './dmarc-reports.projection';
import { dmarcFailureReportsProjection } from './dmarc-failure-reports.projection';
import { tlsReportsProjection } from './tls-reports.projection';
import { certificatesProjection } from './certificates.projection';
import { emailAuthEventsProjection } from './email-auth-events.projection';
import { dmarcReportStatsProjection } from './dmarc-report-stats.projection';
import { emailAuthEnrolmentsProjection } from './email-auth-enrolments.projection';
import { historyProjection } from './history.projection';
import { webhookDeliveriesProjection } from './webhook-deliveries.projection';

/** Every read model of the service; the engine runs each with its own checkpoint. */
export const ALL_PROJECTIONS: ProjectionDefinition[] = [
  accountsProjection,
  sessionsProjection,
  apiKeysProjection,
  auditProjection,
  twoFactorProjection,
  domainsProjection,
  zonesProjection,
  uptimeDomainsProjection,
  emailAuthProjection,
  dmarcReportsProjection,
  dmarcFailureReportsProjection,
  tlsReportsProjection,
  certificatesProjection,
  emailAuthEventsProjection,
  dmarcReportStatsProjection,
  emailAuthEnrolmentsProjection,
  historyProjection,
  webhookDeliveriesProjection,
];
