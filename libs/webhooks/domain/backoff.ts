/** The first retry comes this long after the first failure (give or take the jitter), well within the contract's 5 s. */
export const FIRST_RETRY_MS = 2_000;
/** At most this long between tries (contract §19). */
export const MAX_RETRY_MS = 3_600_000;

/**
 * How long after failed attempt `attempt` (1, 2, …) the next one is due: 2 s doubling per
 * attempt, each delay jittered by ±25 % so endpoints that failed together do not retry
 * together, capped at `maxMs`. `random` is in [0, 1) (Math.random in the sender, fixed in specs).
 */
export function retryDelayMs(attempt: number, random: number, maxMs = MAX_RETRY_MS): number {
  const base = FIRST_RETRY_MS * 2 ** Math.min(Math.max(attempt - 1, 0), 30);
  return Math.round(Math.min(base * (0.75 + random * 0.5), maxMs));
}
