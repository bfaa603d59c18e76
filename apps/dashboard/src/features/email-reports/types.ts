/** Bodies of the dashboard's report reads (`/email-auth/domains/{zone}/...`), from the service's /openapi.json. */
import type { Schema } from '../../api/schema';

export type Counts = Record<string, number>;
export type PublishedPolicy = Schema<'PublishedPolicySchema'>;
export type DmarcSummary = Schema<'DmarcSummarySchema'>;
export type Network = Schema<'NetworkSchema'>;
export type DmarcSources = Schema<'DmarcSourcesSchema'>;

/** A cursor page, as every paged read answers. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export type AggregateReport = Schema<'AggregateReportSchema'>;
export type ReportRow = Schema<'ReportRowSchema'>;
export type AggregateReportDetail = Schema<'AggregateReportDetail'>;
export type FailureReport = Schema<'FailureReportSchema'>;
export type EmailAuthEvent = Schema<'EventSchema'>;
export type TlsSummary = Schema<'TlsSummarySchema'>;
