/**
 * What the DMARC wizard's nightly job needs from ingested aggregate reports. Owned jointly by
 * the email-auth (records, wizard) and dmarc-reports (ingestion) contexts: the wizard consumes
 * it, ingestion implements it. Keep this file byte-identical in both branches.
 */
export const DMARC_AGGREGATE_STATS = Symbol('DMARC_AGGREGATE_STATS');

export interface DmarcAggregateTotals {
  /** Sum of `count` over the report rows. */
  messages: number;
  /** Sum of `count` over rows whose DMARC result passed: aligned DKIM pass or aligned SPF pass. */
  passing: number;
}

export interface DmarcAggregateStats {
  /**
   * Totals over accepted aggregate reports whose policy_published domain is `zone` (lower-case,
   * no trailing dot) and whose report period begins in [from, to).
   */
  totals(zone: string, from: Date, to: Date): Promise<DmarcAggregateTotals>;
}
