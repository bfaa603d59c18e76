/**
 * Uptime history as bounded buckets: hourly for 24 hours, daily for 30 days (the seed's
 * retention). A bucket is keyed by its UTC start as an ISO string, so keys sort and
 * compare as strings. Pure functions: the projection folds checks in, queries read
 * windows out, both against times passed in.
 */
export interface Bucket {
  /** Hour `YYYY-MM-DDTHH:00:00Z` or day `YYYY-MM-DD` (UTC). */
  t: string;
  checks: number;
  up: number;
  /** Sum and count of response times of the successful checks (absent in buckets written before they were kept). */
  rt_sum?: number;
  rt_n?: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
export const HOURLY_RETENTION = 24;
export const DAILY_RETENTION = 30;

export const hourKey = (at: Date | number): string => new Date(at).toISOString().slice(0, 13) + ':00:00Z';
export const dayKey = (at: Date | number): string => new Date(at).toISOString().slice(0, 10);

/** Oldest key inside the last `n` hours/days counted back from the one holding `at` (that one included). */
export const firstHourOf = (at: Date | number, n: number): string => hourKey(+new Date(at) - (n - 1) * HOUR_MS);
export const firstDayOf = (at: Date | number, n: number): string => dayKey(+new Date(at) - (n - 1) * DAY_MS);

/** Counts one check into a bucket the caller owns. */
function countInto(bucket: Bucket, up: boolean, responseTimeMs: number | null): void {
  bucket.checks += 1;
  bucket.up += up ? 1 : 0;
  if (up && responseTimeMs != null) {
    bucket.rt_sum = (bucket.rt_sum ?? 0) + responseTimeMs;
    bucket.rt_n = (bucket.rt_n ?? 0) + 1;
  }
}

/**
 * Adds one check to the bucket `key`, then drops buckets older than the retention counted
 * from the newest bucket. A check older than that (a very late delivery) is dropped too.
 */
function addTo(
  buckets: readonly Bucket[],
  key: string,
  up: boolean,
  responseTimeMs: number | null,
  cutoffFrom: (newest: string) => string,
): Bucket[] {
  const newest = buckets.length && buckets[buckets.length - 1].t > key ? buckets[buckets.length - 1].t : key;
  const cutoff = cutoffFrom(newest);
  const out = buckets.filter((b) => b.t >= cutoff).map((b) => ({ ...b }));
  if (key < cutoff) return out;
  const existing = out.find((b) => b.t === key);
  if (existing) {
    countInto(existing, up, responseTimeMs);
    return out;
  }
  const timed = up && responseTimeMs != null;
  out.push({ t: key, checks: 1, up: up ? 1 : 0, ...(timed ? { rt_sum: responseTimeMs, rt_n: 1 } : {}) });
  return out.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
}

export const addHourly = (
  buckets: readonly Bucket[],
  at: Date | number,
  up: boolean,
  responseTimeMs: number | null = null,
): Bucket[] =>
  addTo(buckets, hourKey(at), up, responseTimeMs, (newest) => firstHourOf(Date.parse(newest), HOURLY_RETENTION));

export const addDaily = (
  buckets: readonly Bucket[],
  at: Date | number,
  up: boolean,
  responseTimeMs: number | null = null,
): Bucket[] =>
  addTo(buckets, dayKey(at), up, responseTimeMs, (newest) => firstDayOf(Date.parse(newest), DAILY_RETENTION));

/**
 * Buckets as a read model stores them: one string, oldest bucket first, each
 * `t,checks,up` or `t,checks,up,rt_sum,rt_n`, separated by `;`. Every check rewrites its
 * domain's document, and the embedded read store copies a document several times per
 * write (a private copy for the caller, the stored version, the message to its writer
 * thread): as arrays of objects those copies grew with the days of history held (up to
 * 30 daily and 24 hourly buckets), a string is one value whatever its length
 * (docs/decisions/0038-uptime-read-model-packed-history.md).
 */
export type PackedBuckets = string;

const packOne = (b: Bucket): string =>
  b.rt_n === undefined ? `${b.t},${b.checks},${b.up}` : `${b.t},${b.checks},${b.up},${b.rt_sum ?? 0},${b.rt_n}`;

function unpackOne(segment: string): Bucket {
  const [t, checks, up, rtSum, rtN] = segment.split(',');
  const b: Bucket = { t, checks: Number(checks), up: Number(up) };
  if (rtN !== undefined) {
    b.rt_sum = Number(rtSum);
    b.rt_n = Number(rtN);
  }
  return b;
}

export const packBuckets = (buckets: readonly Bucket[]): PackedBuckets => buckets.map(packOne).join(';');

/** The buckets of a stored value: packed, or an array as documents written before packing hold. */
export function unpackBuckets(stored: PackedBuckets | readonly Bucket[] | null | undefined): Bucket[] {
  if (Array.isArray(stored)) return stored.map((b) => ({ ...b }));
  if (typeof stored !== 'string' || stored === '') return [];
  return stored.split(';').map(unpackOne);
}

/**
 * Adds one check to packed buckets. The usual check lands in the newest bucket: only that
 * bucket's text is rewritten, so the cost does not depend on how many buckets are held.
 * Anything else (a new hour or day, which may also drop the oldest; a late check; an
 * array from before packing) goes through `add` on the unpacked buckets.
 */
function addPacked(
  stored: PackedBuckets | readonly Bucket[],
  key: string,
  up: boolean,
  responseTimeMs: number | null,
  add: (buckets: readonly Bucket[]) => Bucket[],
): PackedBuckets {
  if (typeof stored === 'string' && stored !== '') {
    const cut = stored.lastIndexOf(';') + 1;
    if (stored.startsWith(`${key},`, cut)) {
      const newest = unpackOne(stored.slice(cut));
      countInto(newest, up, responseTimeMs);
      return stored.slice(0, cut) + packOne(newest);
    }
  }
  return packBuckets(add(unpackBuckets(stored)));
}

export const addHourlyPacked = (
  stored: PackedBuckets | readonly Bucket[],
  at: Date | number,
  up: boolean,
  responseTimeMs: number | null = null,
): PackedBuckets => addPacked(stored, hourKey(at), up, responseTimeMs, (b) => addHourly(b, at, up, responseTimeMs));

export const addDailyPacked = (
  stored: PackedBuckets | readonly Bucket[],
  at: Date | number,
  up: boolean,
  responseTimeMs: number | null = null,
): PackedBuckets => addPacked(stored, dayKey(at), up, responseTimeMs, (b) => addDaily(b, at, up, responseTimeMs));

export interface Tally {
  checks: number;
  up: number;
}

export const tallyFrom = (buckets: readonly Bucket[], fromKey: string): Tally =>
  buckets.reduce((t, b) => (b.t >= fromKey ? { checks: t.checks + b.checks, up: t.up + b.up } : t), {
    checks: 0,
    up: 0,
  });

export const addTallies = (a: Tally, b: Tally): Tally => ({ checks: a.checks + b.checks, up: a.up + b.up });

/** Successful checks over total checks, in percent with two decimals; null when the window holds no check. */
export const percentage = (t: Tally): number | null =>
  t.checks === 0 ? null : Math.round((t.up / t.checks) * 10_000) / 100;

export interface WindowTallies {
  h24: Tally;
  d7: Tally;
  d30: Tally;
}

/** The seed's windows at `now`: 24 h from hourly buckets, 7 and 30 days from daily aggregates. */
export const windowTallies = (hourly: readonly Bucket[], daily: readonly Bucket[], now: Date): WindowTallies => ({
  h24: tallyFrom(hourly, firstHourOf(now, HOURLY_RETENTION)),
  d7: tallyFrom(daily, firstDayOf(now, 7)),
  d30: tallyFrom(daily, firstDayOf(now, DAILY_RETENTION)),
});

export type HistoryWindow = '24h' | '7d' | '30d';
export const HISTORY_WINDOWS: readonly HistoryWindow[] = ['24h', '7d', '30d'];

export interface HistoryPoint {
  /** Start of the bucket (UTC). */
  at: string;
  checks: number;
  uptime_percentage: number | null;
  avg_response_time_ms: number | null;
}

/**
 * The chart series of one window at `now`: one point per hour (24h) or per day (7d, 30d),
 * oldest first, every slot present; a slot without checks has null values.
 */
export function historySeries(
  hourly: readonly Bucket[],
  daily: readonly Bucket[],
  window: HistoryWindow,
  now: Date,
): HistoryPoint[] {
  const hours = window === '24h';
  const slots = hours ? HOURLY_RETENTION : window === '7d' ? 7 : DAILY_RETENTION;
  const step = hours ? HOUR_MS : DAY_MS;
  const byKey = new Map((hours ? hourly : daily).map((b) => [b.t, b]));
  const points: HistoryPoint[] = [];
  for (let i = slots - 1; i >= 0; i--) {
    const key = hours ? hourKey(+now - i * step) : dayKey(+now - i * step);
    const b = byKey.get(key);
    points.push({
      at: hours ? key : `${key}T00:00:00Z`,
      checks: b?.checks ?? 0,
      uptime_percentage: b ? percentage(b) : null,
      avg_response_time_ms: b?.rt_n ? Math.round(b.rt_sum! / b.rt_n) : null,
    });
  }
  return points;
}
