import { CertificateState } from './certificate.decider';
import { ChallengeRecord } from './certificate.events';

/** Seed timing: authorization polling runs up to 30 iterations at 2-second intervals. */
export const AUTHZ_POLL_ATTEMPTS = 30;
export const AUTHZ_POLL_INTERVAL_MS = 2000;
/** The first look comes soon after answering; the seed's interval applies after it. */
export const AUTHZ_FIRST_POLL_MS = 250;

/** When to poll again after poll number `poll` (1-based) found the authorizations pending. */
export const nextPollDelayMs = (poll: number) => (poll <= 1 ? AUTHZ_FIRST_POLL_MS : AUTHZ_POLL_INTERVAL_MS);

/**
 * The pure planner of issuance: the next thing to do for one certificate, decided from
 * that certificate's stream alone (its folded state) and the time. Each step's outcome
 * is recorded as an event before the next is decided, so after a crash the process
 * manager resumes at the first step with no recorded outcome; steps whose effect may
 * already have happened (publish, answer, finalize) are idempotent at their target.
 * `wait_propagation` is a wait the process manager holds as a timer, never a sleep.
 */
export type IssuanceStep =
  | { kind: 'remove_records'; attempt: number; records: ChallengeRecord[] }
  | { kind: 'request_order'; attempt: number }
  | { kind: 'place_order'; attempt: number; names: string[] }
  | { kind: 'publish_records'; attempt: number; records: ChallengeRecord[] }
  | { kind: 'wait_propagation'; attempt: number; until: number }
  | { kind: 'answer_challenges'; attempt: number; records: ChallengeRecord[] }
  | { kind: 'poll_authorizations'; attempt: number; records: ChallengeRecord[]; polls: number }
  | { kind: 'generate_key'; attempt: number; names: string[] }
  | { kind: 'finalize'; attempt: number; orderUrl: string; finalizeUrl: string; csrPem: string }
  | { kind: 'idle' };

export function nextIssuanceStep(s: CertificateState, now: number, propagationDelayMs: number): IssuanceStep {
  const inFlight = s.status === 'pending' || s.status === 'validating';
  // Cleanup owed by earlier attempts (or by this one once it has ended) comes first.
  for (const [attempt, records] of s.liveRecords) {
    if (!inFlight || attempt !== s.attempt) return { kind: 'remove_records', attempt, records };
  }
  if (!inFlight) return { kind: 'idle' };
  const p = s.progress;
  const attempt = s.attempt;
  if (!p.order)
    return p.orderRequested ? { kind: 'place_order', attempt, names: s.names } : { kind: 'request_order', attempt };
  if (!p.publishedAt) return { kind: 'publish_records', attempt, records: p.order.challenges };
  if (!p.answered) {
    const until = Date.parse(p.publishedAt) + propagationDelayMs;
    if (now < until) return { kind: 'wait_propagation', attempt, until };
    return { kind: 'answer_challenges', attempt, records: p.order.challenges };
  }
  if (!p.authorized) return { kind: 'poll_authorizations', attempt, records: p.order.challenges, polls: p.polls };
  if (!p.key) return { kind: 'generate_key', attempt, names: s.names };
  return { kind: 'finalize', attempt, orderUrl: p.order.url, finalizeUrl: p.order.finalizeUrl, csrPem: p.key.csrPem };
}

/** `_acme-challenge` owner of a name, relative to its zone (the wildcard shares its base name's). */
export function challengeSubname(identifier: string, zone: string): string {
  const base = identifier.replace(/^\*\./, '');
  const rel = base === zone ? '' : base.slice(0, base.length - zone.length - 1);
  return rel ? `_acme-challenge.${rel}` : '_acme-challenge';
}

/** The TXT RRset changes for a set of challenge records: values grouped by owner. */
export function challengeTxtSets(records: ChallengeRecord[]): Array<{ subname: string; values: string[] }> {
  const by = new Map<string, Set<string>>();
  for (const r of records) by.set(r.subname, (by.get(r.subname) ?? new Set()).add(r.value));
  return [...by].map(([subname, values]) => ({ subname, values: [...values] }));
}
