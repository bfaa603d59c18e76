/**
 * The alert rules of contract §9. Each rule turns one observation (a day's report
 * figures, or one live-DNS check) into "firing", "clear" or nothing to say; the alert
 * decider (`alert.decider.ts`) turns a run of those into raise-once/resolve-once events.
 */
export const ALERT_RULES = ['record_missing', 'dmarc_pass_rate', 'tls_failures'] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

export interface RuleDefinition {
  severity: 'warning' | 'critical';
  /** What the rule compares against, as shown in the alert's data. */
  threshold: Record<string, number>;
  /**
   * Consecutive clear observations needed before a raised alert resolves. A live-DNS
   * check is one lookup (a resolver hiccup or a record being re-published can make a
   * single check look clear), so it takes two; a day's report figures are already a full
   * day's worth, so one clear day resolves.
   */
  clearObservationsToResolve: number;
}

export const DMARC_MIN_PASS_RATE = 0.9;
export const DMARC_MIN_MESSAGES = 100;
export const TLS_MAX_FAILED_RATIO = 0.05;

export const RULES: Record<AlertRule, RuleDefinition> = {
  record_missing: { severity: 'critical', threshold: { missing_records: 0 }, clearObservationsToResolve: 2 },
  dmarc_pass_rate: {
    severity: 'warning',
    threshold: { min_pass_rate: DMARC_MIN_PASS_RATE, min_messages: DMARC_MIN_MESSAGES },
    clearObservationsToResolve: 1,
  },
  tls_failures: {
    severity: 'warning',
    threshold: { max_failed_ratio: TLS_MAX_FAILED_RATIO },
    clearObservationsToResolve: 1,
  },
};

export type Verdict = 'firing' | 'clear' | 'no_data';

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** (b) A day's DMARC pass rate below 90% on 100 or more messages; fewer messages say nothing either way. */
export function dmarcPassRateVerdict(
  messages: number,
  passing: number,
): { verdict: Verdict; figures: Record<string, number> } {
  const figures = { messages, passing, pass_rate: messages > 0 ? round4(passing / messages) : 0 };
  if (messages < DMARC_MIN_MESSAGES) return { verdict: 'no_data', figures };
  return { verdict: passing / messages < DMARC_MIN_PASS_RATE ? 'firing' : 'clear', figures };
}

/** (c) More than 5% of a day's TLS sessions failed; a day without sessions says nothing. */
export function tlsFailuresVerdict(
  successful: number,
  failed: number,
): { verdict: Verdict; figures: Record<string, number> } {
  const sessions = successful + failed;
  const figures = {
    sessions,
    successful_sessions: successful,
    failed_sessions: failed,
    failed_ratio: sessions > 0 ? round4(failed / sessions) : 0,
  };
  if (sessions === 0) return { verdict: 'no_data', figures };
  return { verdict: failed / sessions > TLS_MAX_FAILED_RATIO ? 'firing' : 'clear', figures };
}

/** A human title for the log: what happened and where. */
export function alertTitle(
  rule: AlertRule,
  zone: string,
  state: 'raised' | 'resolved',
  figures: Record<string, unknown>,
): string {
  const pct = (x: unknown) => `${Math.round(Number(x) * 1000) / 10}%`;
  switch (rule) {
    case 'record_missing':
      return state === 'raised'
        ? `DNS records of ${zone} are not live: ${(figures.missing as string[] | undefined)?.join(', ') ?? 'unknown'}`
        : `All needed DNS records of ${zone} are live again`;
    case 'dmarc_pass_rate':
      return state === 'raised'
        ? `DMARC pass rate of ${zone} fell to ${pct(figures.pass_rate)} on ${figures.messages} messages (${figures.day})`
        : `DMARC pass rate of ${zone} is back at ${pct(figures.pass_rate)} (${figures.day})`;
    case 'tls_failures':
      return state === 'raised'
        ? `TLS failures for ${zone} reached ${pct(figures.failed_ratio)} of ${figures.sessions} sessions (${figures.day})`
        : `TLS failures for ${zone} are back at ${pct(figures.failed_ratio)} (${figures.day})`;
  }
}
