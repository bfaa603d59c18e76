import { DomainEvent } from '../../shared/decider';
import { AlertRule } from './alert-rules';

interface AlertFact {
  account_id: number;
  zone: string;
  rule: AlertRule;
  /** The observation's order key: a report day (`2026-03-01`) or a check time (ISO). */
  observed: string;
}

type Figures = Record<string, unknown>;

/** Logged as `alert.raised`. */
export type AlertRaised = DomainEvent<
  'AlertRaised',
  AlertFact & {
    severity: 'warning' | 'critical';
    occurred_at: string;
    figures: Figures;
    threshold: Record<string, number>;
  }
>;
/** A clear observation while raised, short of the streak that resolves it (not logged). */
export type AlertClearObserved = DomainEvent<'AlertClearObserved', AlertFact & { clear_streak: number }>;
/** Firing again before the streak resolved it: the streak starts over (not logged; no second raise). */
export type AlertRecurred = DomainEvent<'AlertRecurred', AlertFact & { figures: Figures }>;
/** Logged as `alert.resolved`. */
export type AlertResolved = DomainEvent<
  'AlertResolved',
  AlertFact & {
    severity: 'warning' | 'critical';
    occurred_at: string;
    raised_at: string;
    figures: Figures;
    threshold: Record<string, number>;
  }
>;

export type AlertEvent = AlertRaised | AlertClearObserved | AlertRecurred | AlertResolved;

export const ALERT_EVENT_TYPES = [
  'AlertRaised',
  'AlertClearObserved',
  'AlertRecurred',
  'AlertResolved',
] as const satisfies readonly AlertEvent['type'][];

/** One alert stream per account, rule and domain: a zone moving to another account starts afresh. */
export const alertStream = (accountId: number, rule: AlertRule, zone: string): string =>
  `email-auth-alert-${accountId}-${rule}-${zone}`;
