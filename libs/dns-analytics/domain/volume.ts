/**
 * The query-volume series behind the dashboard's chart (docs/dns-analytics-volume.md): one
 * point per hour for 24 h, per UTC day for 7 and 30 days, oldest first, every slot present,
 * read from the same rollup buckets as the summary so the points add up to its totals.
 */
import { ERROR_RCODES } from './query-row';
import { bucketSize, bucketStart, Granularity, RollupCounts } from './rollup';
import type { Window } from './summary';

export interface VolumeSlots {
  granularity: Granularity;
  /** Epoch ms of each slot's start, oldest first; the last holds `now`. */
  starts: number[];
}

const SLOTS: Record<Window, { granularity: Granularity; count: number }> = {
  '24h': { granularity: 'hour', count: 24 },
  '7d': { granularity: 'day', count: 7 },
  '30d': { granularity: 'day', count: 30 },
};

export function volumeSlots(now: number, window: Window): VolumeSlots {
  const { granularity, count } = SLOTS[window];
  const last = bucketStart(now, granularity);
  const size = bucketSize(granularity);
  return { granularity, starts: Array.from({ length: count }, (_, i) => last - (count - 1 - i) * size) };
}

export interface VolumePoint {
  at: string;
  queries: number;
  /** NXDOMAIN + SERVFAIL + REFUSED, as in the summary's error_rate. */
  errors: number;
}

export const volumePoint = (start: number, c: RollupCounts): VolumePoint => ({
  at: new Date(start).toISOString().replace('.000Z', 'Z'),
  queries: c.total,
  errors: ERROR_RCODES.reduce((n, r) => n + (c.rcodes[r] ?? 0), 0),
});
