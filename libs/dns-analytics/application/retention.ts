import { bucketSize } from '../domain/rollup';

/** Hourly buckets are kept long enough for the trend's 8-day look-back and the 30-day window's edges. */
export const HOURLY_RETENTION_DAYS = 35;
/** Daily buckets: about 12 months (seed "Limits", contract §15). */
export const DAILY_RETENTION_DAYS = 370;

/**
 * What the retention job prunes before, at `now` (contract §15): raw rows of the current
 * and the previous UTC month, hourly buckets 35 days, daily buckets about 12 months.
 */
export function retentionCutoffs(now: Date): { rawBefore: number; hourlyBefore: number; dailyBefore: number } {
  const day = bucketSize('day');
  return {
    rawBefore: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1),
    hourlyBefore: now.getTime() - HOURLY_RETENTION_DAYS * day,
    dailyBefore: now.getTime() - DAILY_RETENTION_DAYS * day,
  };
}
