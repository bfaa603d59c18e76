/**
 * Shapes of the DNS analytics API (contract §12, docs/dns-analytics-volume.md) as the dashboard uses
 * them: from the service's /openapi.json (../../api/schema.ts).
 */
import type { Body, Schema } from '../../api/schema';

export type AnalyticsSummary = Schema<'AnalyticsSummary'>;

export type VolumeSeries = Body<'DnsAnalyticsController_volume'>;

export type AnalyticsWindow = VolumeSeries['window'];

export type RecentQuery = Schema<'RecentQuery'>;
