import { tooManyRequests } from '../../shared/errors';

/** The public CA's limits (seed): per registered domain and per identical name set, over a rolling week. */
export const CA_WINDOW_MS = 7 * 86_400_000;
export const CA_PER_DOMAIN_PER_WEEK = 50;
export const CA_DUPLICATES_PER_WEEK = 5;

export interface PastIssuance {
  registered_domain: string;
  names_key: string;
  issued_at: string;
}

/** The same set of names, whatever their order: what the CA calls a duplicate certificate. */
export const namesKey = (names: string[]) => [...new Set(names.map((n) => n.toLowerCase()))].sort().join(',');

/**
 * Refuses an order the CA would refuse, from the issuances recorded in the last week
 * (all accounts: the CA's limits are global). Retry-After is when the oldest issuance
 * that counts leaves the window.
 */
export function checkCaLimits(past: PastIssuance[], registeredDomain: string, names: string[], now: number): void {
  const since = now - CA_WINDOW_MS;
  const recent = past.filter((p) => Date.parse(p.issued_at) > since);
  const check = (hits: PastIssuance[], limit: number, what: string) => {
    if (hits.length < limit) return;
    const oldest = Math.min(...hits.map((h) => Date.parse(h.issued_at)));
    throw tooManyRequests(
      'ca_rate_limited',
      `The certificate authority's limit of ${limit} ${what} per week is reached`,
      (oldest + CA_WINDOW_MS - now) / 1000,
    );
  };
  check(
    recent.filter((p) => p.registered_domain === registeredDomain),
    CA_PER_DOMAIN_PER_WEEK,
    `certificates for ${registeredDomain}`,
  );
  check(
    recent.filter((p) => p.names_key === namesKey(names)),
    CA_DUPLICATES_PER_WEEK,
    'duplicate certificates',
  );
}
