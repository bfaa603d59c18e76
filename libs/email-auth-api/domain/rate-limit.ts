/** Seed: 60 requests a minute per key. */
export const REQUESTS_PER_MINUTE = 60;
export const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds when the window ends (contract §9: X-RateLimit-Reset as epoch seconds). */
  reset: number;
  retryAfterSeconds: number;
}

export const windowStart = (nowMs: number) => nowMs - (nowMs % WINDOW_MS);

/** What the `count`-th request of the window starting at `start` may do at `nowMs`. */
export function rateDecision(count: number, start: number, nowMs: number, limit = REQUESTS_PER_MINUTE): RateDecision {
  const end = start + WINDOW_MS;
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    reset: Math.ceil(end / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((end - nowMs) / 1000)),
  };
}
