import { ProcessFact, ProcessTrigger, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import { EvaluateAlert } from './alert.decider';
import { DailyReportFact, dailyReportAlerts as pm } from './daily-report-alerts.process-manager';

type Fact = ProcessFact<DailyReportFact, EvaluateAlert>;

const { given } = processSpecFor(processStreamDecider(pm));

const P = '7-example.org';
const DAY = '2026-05-02';
const dmarc = (messages: number, passing: number): DailyReportFact => ({
  type: 'dmarc',
  account_id: 7,
  zone: 'example.org',
  day: DAY,
  messages,
  passing,
});
const tls = (successful: number, failed: number): DailyReportFact => ({
  type: 'tls',
  account_id: 7,
  zone: 'example.org',
  day: DAY,
  successful,
  failed,
});
const observed = (id: string, fact: DailyReportFact): Fact => ({
  type: 'ProcessEventObserved',
  data: { process: P, event_id: id, fact },
});
const scheduled: Fact = {
  type: 'ProcessTimerScheduled',
  data: { timer_id: `day:${DAY}`, due_at: '2026-05-04T00:00:00.000Z' },
};
const AT = '2026-05-04T00:01:00.000Z';
const fires: ProcessTrigger<DailyReportFact> = { kind: 'timer', process: P, timerId: `day:${DAY}`, at: AT };
const firedFact: Fact = { type: 'ProcessTimerFired', data: { process: P, timer_id: `day:${DAY}`, at: AT } };
const base = { type: 'EvaluateAlert' as const, account_id: 7, zone: 'example.org', observed: DAY, at: AT };

describe('daily report alerts process manager (contract §9 rules b and c)', () => {
  it('the first report of a day schedules the day’s evaluation a day after the day ends', () => {
    given([])
      .when({ kind: 'observed', process: P, fact: dmarc(80, 40) }, 'e1')
      .then([observed('e1', dmarc(80, 40)), scheduled]);
  });

  it('later reports of the same day add up without scheduling again', () => {
    given([observed('e1', dmarc(80, 40)), scheduled])
      .when({ kind: 'observed', process: P, fact: tls(10, 0) }, 'e2')
      .then([observed('e2', tls(10, 0))]);
  });

  it('the evaluation judges the day’s totals of both rules, with ids from process, rule and day', () => {
    given([observed('e1', dmarc(80, 40)), scheduled, observed('e2', dmarc(40, 40)), observed('e3', tls(90, 10))])
      .when(fires)
      .then([
        firedFact,
        {
          type: 'ProcessCommandIssued',
          data: {
            command_id: `alert:${P}:dmarc_pass_rate:${DAY}`,
            command: {
              ...base,
              rule: 'dmarc_pass_rate',
              verdict: 'firing',
              figures: { day: DAY, messages: 120, passing: 80, pass_rate: 0.6667 },
            },
          },
        },
        {
          type: 'ProcessCommandIssued',
          data: {
            command_id: `alert:${P}:tls_failures:${DAY}`,
            command: {
              ...base,
              rule: 'tls_failures',
              verdict: 'firing',
              figures: { day: DAY, sessions: 100, successful_sessions: 90, failed_sessions: 10, failed_ratio: 0.1 },
            },
          },
        },
      ]);
  });

  it('a day with too few messages and no TLS sessions judges nothing', () => {
    given([observed('e1', dmarc(99, 0)), scheduled])
      .when(fires)
      .then([firedFact]);
  });

  it('a report for a day already judged is counted but judges nothing again', () => {
    given([observed('e1', dmarc(200, 200)), scheduled, firedFact])
      .when({ kind: 'observed', process: P, fact: dmarc(500, 0) }, 'e9')
      .then([observed('e9', dmarc(500, 0))]);
  });

  it('a redelivered report records nothing', () => {
    given([observed('e1', dmarc(80, 40)), scheduled])
      .when({ kind: 'observed', process: P, fact: dmarc(80, 40) }, 'e1')
      .then([]);
  });
});
