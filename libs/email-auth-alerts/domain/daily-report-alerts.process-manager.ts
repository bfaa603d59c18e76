import type { ProcessDecision, ProcessManager, ProcessTrigger } from '../../consumers/process-manager';
import type { AggregateReportReceived, TlsReportReceived } from '../../dmarc-reports/domain/report.events';
import type { RecordedEvent } from '../../eventstore/event-store.port';
import { dmarcPassRateVerdict, tlsFailuresVerdict } from './alert-rules';
import type { EvaluateAlert } from './alert.decider';

/** What the process keeps of a report: its day's counts (no reporter, no addresses). */
export type DailyReportFact =
  | { type: 'dmarc'; account_id: number; zone: string; day: string; messages: number; passing: number }
  | { type: 'tls'; account_id: number; zone: string; day: string; successful: number; failed: number };

export interface DayTotals {
  messages: number;
  passing: number;
  successful: number;
  failed: number;
  evaluated: boolean;
}

export interface DailyReportState {
  accountId: number | null;
  zone: string | null;
  days: Record<string, DayTotals>;
}

/**
 * How long after a day ends its figures are judged. Reporters send a day's aggregate and
 * TLS reports during the following day (RFC 7489 §7.2, RFC 8460 §4.1); judging once all
 * of them are in, rather than at each report, is what keeps the daily rules from raising
 * on the first report of a day and resolving on the next.
 */
export const DAY_EVALUATION_DELAY_MS = 24 * 3_600_000;
/** Days kept in the state: older days have been judged long ago. */
const DAYS_KEPT = 14;
const DAY_MS = 86_400_000;

const dayTimer = (day: string) => `day:${day}`;
const dayOfTimer = (timerId: string) => (timerId.startsWith('day:') ? timerId.slice(4) : null);
/** A report's day is the UTC day its period begins (aggregate and TLS reports cover one day). */
const dayOf = (begin: string) => begin.slice(0, 10);
export const dayEvaluationDue = (day: string): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS + DAY_EVALUATION_DELAY_MS).toISOString();

const emptyDay = (): DayTotals => ({ messages: 0, passing: 0, successful: 0, failed: 0, evaluated: false });

/**
 * Alert rules (b) and (c) of contract §9, one process per account and domain: it adds up
 * each day's aggregate and TLS report counts; the first report of a day schedules the
 * day's evaluation a day after it ends; the evaluation sends one `EvaluateAlert` per rule
 * that has enough data that day (ids derived from process, rule and day, so a resend is
 * recognised). A report for a day already judged is counted but judges nothing again.
 */
export const dailyReportAlerts: ProcessManager<DailyReportState, DailyReportFact, EvaluateAlert> = {
  name: 'email-auth-daily-alerts',
  observes: ['DmarcAggregateReportReceived', 'TlsReportReceived'],

  observe(event: RecordedEvent) {
    if (event.type === 'DmarcAggregateReportReceived') {
      const d: AggregateReportReceived['data'] = event.data;
      return {
        process: `${d.account_id}-${d.zone}`,
        fact: {
          type: 'dmarc',
          account_id: d.account_id,
          zone: d.zone,
          day: dayOf(d.begin),
          messages: d.message_count,
          passing: d.passing_count,
        },
      };
    }
    if (event.type === 'TlsReportReceived') {
      const d: TlsReportReceived['data'] = event.data;
      return {
        process: `${d.account_id}-${d.zone}`,
        fact: {
          type: 'tls',
          account_id: d.account_id,
          zone: d.zone,
          day: dayOf(d.begin),
          successful: d.successful_sessions,
          failed: d.failed_sessions,
        },
      };
    }
    return null;
  },

  initialState: () => ({ accountId: null, zone: null, days: {} }),

  evolve(state, trigger) {
    if (trigger.kind === 'timer') {
      const day = dayOfTimer(trigger.timerId);
      if (!day || !state.days[day]) return state;
      return { ...state, days: { ...state.days, [day]: { ...state.days[day], evaluated: true } } };
    }
    const f = trigger.fact;
    const before = state.days[f.day] ?? emptyDay();
    const after =
      f.type === 'dmarc'
        ? { ...before, messages: before.messages + f.messages, passing: before.passing + f.passing }
        : { ...before, successful: before.successful + f.successful, failed: before.failed + f.failed };
    const days = { ...state.days, [f.day]: after };
    // Forget days well before the newest one (their evaluation has long fired).
    const newest = Object.keys(days).sort().at(-1)!;
    const horizon = new Date(Date.parse(`${newest}T00:00:00Z`) - DAYS_KEPT * DAY_MS).toISOString().slice(0, 10);
    for (const day of Object.keys(days)) if (day < horizon && days[day].evaluated) delete days[day];
    return { accountId: f.account_id, zone: f.zone, days };
  },

  decide(trigger: ProcessTrigger<DailyReportFact>, state): ProcessDecision<EvaluateAlert>[] {
    if (trigger.kind === 'observed') {
      return state.days[trigger.fact.day]
        ? []
        : [{ type: 'schedule', timerId: dayTimer(trigger.fact.day), dueAt: dayEvaluationDue(trigger.fact.day) }];
    }
    const day = dayOfTimer(trigger.timerId);
    const totals = day ? state.days[day] : undefined;
    if (!day || !totals || totals.evaluated || state.accountId === null || state.zone === null) return [];
    const base = {
      type: 'EvaluateAlert' as const,
      account_id: state.accountId,
      zone: state.zone,
      observed: day,
      at: trigger.at,
    };
    const decisions: ProcessDecision<EvaluateAlert>[] = [];
    const dmarc = dmarcPassRateVerdict(totals.messages, totals.passing);
    if (dmarc.verdict !== 'no_data') {
      decisions.push({
        type: 'send',
        commandId: `alert:${trigger.process}:dmarc_pass_rate:${day}`,
        command: { ...base, rule: 'dmarc_pass_rate', verdict: dmarc.verdict, figures: { day, ...dmarc.figures } },
      });
    }
    const tls = tlsFailuresVerdict(totals.successful, totals.failed);
    if (tls.verdict !== 'no_data') {
      decisions.push({
        type: 'send',
        commandId: `alert:${trigger.process}:tls_failures:${day}`,
        command: { ...base, rule: 'tls_failures', verdict: tls.verdict, figures: { day, ...tls.figures } },
      });
    }
    return decisions;
  },
};
