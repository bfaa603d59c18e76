import { HistoryPoint } from './history';

/**
 * Fine-grained uptime from the raw checks (the `CheckRecorded` events of a domain's uptime
 * stream, kept 31 days): a series at minutes for the last hours, and the incidents (down
 * periods) with their durations. Pure: the reader hands the checks in, oldest first.
 */
export interface CheckFact {
  at: string;
  is_up: boolean;
  response_time_ms: number | null;
  error: string | null;
  port: number | null;
}

export const CHECK_WINDOWS = ['1h', '6h', '24h'] as const;
export type CheckWindow = (typeof CHECK_WINDOWS)[number];

/** Window length and bucket: 1 h per minute, 6 h per 5 minutes, 24 h per 15 minutes (60 / 72 / 96 points). */
export const CHECK_WINDOW_SHAPE: Record<CheckWindow, { seconds: number; bucketSeconds: number }> = {
  '1h': { seconds: 3600, bucketSeconds: 60 },
  '6h': { seconds: 6 * 3600, bucketSeconds: 300 },
  '24h': { seconds: 24 * 3600, bucketSeconds: 900 },
};

/** The first instant the window covers: the start of its oldest bucket. */
export function windowStart(window: CheckWindow, now: Date): number {
  const { seconds, bucketSeconds } = CHECK_WINDOW_SHAPE[window];
  const step = bucketSeconds * 1000;
  return Math.floor(+now / step) * step - (seconds * 1000 - step);
}

/** Every bucket of the window, oldest first, empty ones included (the chart's x-axis is the window, not the data). */
export function checkSeries(checks: readonly CheckFact[], window: CheckWindow, now: Date): HistoryPoint[] {
  const { seconds, bucketSeconds } = CHECK_WINDOW_SHAPE[window];
  const step = bucketSeconds * 1000;
  const start = windowStart(window, now);
  const slots = seconds / bucketSeconds;
  const tally = Array.from({ length: slots }, () => ({ checks: 0, up: 0, rtSum: 0, rtN: 0 }));
  for (const c of checks) {
    const i = Math.floor((Date.parse(c.at) - start) / step);
    if (i < 0 || i >= slots) continue;
    const t = tally[i];
    t.checks++;
    if (c.is_up) t.up++;
    if (c.is_up && c.response_time_ms !== null) {
      t.rtSum += c.response_time_ms;
      t.rtN++;
    }
  }
  return tally.map((t, i) => ({
    at: new Date(start + i * step).toISOString().replace('.000Z', 'Z'),
    checks: t.checks,
    uptime_percentage: t.checks ? Math.round((t.up / t.checks) * 10_000) / 100 : null,
    avg_response_time_ms: t.rtN ? Math.round(t.rtSum / t.rtN) : null,
  }));
}

export interface Incident {
  /** The first failed check. */
  started_at: string;
  /** The first successful check after it; null while the host is still down. */
  ended_at: string | null;
  /** Until `ended_at`, or until now while it lasts. */
  duration_seconds: number;
  failed_checks: number;
  /** The error of the first failed check (`connection refused`, …). */
  error: string | null;
}

/** Down periods, newest first: a run of failed checks ended by the next successful one. */
export function incidentsOf(checks: readonly CheckFact[], now: Date): Incident[] {
  const found: Incident[] = [];
  let open: Incident | null = null;
  for (const c of checks) {
    if (!c.is_up) {
      if (open) open.failed_checks++;
      else open = { started_at: c.at, ended_at: null, duration_seconds: 0, failed_checks: 1, error: c.error };
    } else if (open) {
      open.ended_at = c.at;
      open.duration_seconds = Math.round((Date.parse(c.at) - Date.parse(open.started_at)) / 1000);
      found.push(open);
      open = null;
    }
  }
  if (open) {
    open.duration_seconds = Math.max(0, Math.round((+now - Date.parse(open.started_at)) / 1000));
    found.push(open);
  }
  return found.reverse();
}
