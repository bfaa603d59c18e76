/**
 * What the service keeps and for how long (contract §15), in one place. Raw uptime
 * checks live in `uptime-<id>` streams with `$maxAge` (UPTIME_STREAM_MAX_AGE_SECONDS,
 * set when monitoring starts); hourly/daily buckets are bounded inside the uptime read
 * model (libs/uptime/domain/history.ts: 24 hourly, 30 daily, trimmed on every check and
 * windowed by the clock on read); key uses are one row per key (`last_used_at`, exact).
 * This file lists the read-store documents that expire by a Date field: MongoDB drops
 * them through a TTL index, and the retention job deletes them on the embedded store.
 * (Login lockout counters are shared records of the coordination store, which drops
 * them itself once expired: libs/consumers/coordination.ts.)
 */
export interface ExpiringCollection {
  collection: string;
  field: string;
}

export const EXPIRING_COLLECTIONS: readonly ExpiringCollection[] = [];

/** Hourly: a run is cheap (an indexed delete) and keeps what expired at most an hour past due. */
export const RETENTION_CRON = '0 7 * * * *';
