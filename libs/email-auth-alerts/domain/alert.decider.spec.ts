import { specFor } from '../../shared/testing/decider-spec';
import { RULES } from './alert-rules';
import { alertDecider, EvaluateAlert } from './alert.decider';
import { AlertEvent } from './alert.events';

const spec = specFor(alertDecider);
const fact = (rule: EvaluateAlert['rule'], observed: string) => ({
  account_id: 7,
  zone: 'example.org',
  rule,
  observed,
});

const check = (
  observed: string,
  verdict: 'firing' | 'clear',
  figures: Record<string, unknown> = {},
): EvaluateAlert => ({
  type: 'EvaluateAlert',
  account_id: 7,
  zone: 'example.org',
  rule: 'record_missing',
  observed,
  at: observed,
  verdict,
  figures,
});
const day = (observed: string, verdict: 'firing' | 'clear', pass_rate: number): EvaluateAlert => ({
  ...check(`${observed}`, verdict, { day: observed, messages: 200, pass_rate }),
  rule: 'dmarc_pass_rate',
  at: `${observed}T00:00:00.000Z`,
});

const T1 = '2026-06-01T10:00:00.000Z';
const T2 = '2026-06-01T11:00:00.000Z';
const T3 = '2026-06-01T12:00:00.000Z';
const T4 = '2026-06-01T13:00:00.000Z';

const raised = (observed: string, figures: Record<string, unknown>): AlertEvent => ({
  type: 'AlertRaised',
  data: {
    ...fact('record_missing', observed),
    severity: 'critical',
    occurred_at: observed,
    figures,
    threshold: RULES.record_missing.threshold,
  },
});
const missing = { missing: ['_dmarc.example.org'], needed: 3 };
const allLive = { missing: [], needed: 3 };

describe('alert decider (contract §9: raise once, resolve once, no flapping)', () => {
  it('raises when the condition first fires, with the rule, figures and threshold', () => {
    spec
      .given([])
      .when(check(T1, 'firing', missing))
      .then([raised(T1, missing)]);
  });

  it('a clear observation while nothing is raised records nothing', () => {
    spec
      .given([])
      .when(check(T1, 'clear', allLive))
      .then([]);
  });

  it('does not raise again while raised', () => {
    spec
      .given([raised(T1, missing)])
      .when(check(T2, 'firing', missing))
      .then([]);
  });

  it('ignores an observation not newer than the last one (a repeated or late check)', () => {
    spec
      .given([raised(T2, missing)])
      .when(check(T1, 'clear', allLive))
      .then([]);
    spec
      .given([raised(T2, missing)])
      .when(check(T2, 'clear', allLive))
      .then([]);
  });

  it('a live-record alert needs two consecutive clear checks to resolve', () => {
    const firstClear: AlertEvent = {
      type: 'AlertClearObserved',
      data: { ...fact('record_missing', T2), clear_streak: 1 },
    };
    spec
      .given([raised(T1, missing)])
      .when(check(T2, 'clear', allLive))
      .then([firstClear]);
    spec
      .given([raised(T1, missing), firstClear])
      .when(check(T3, 'clear', allLive))
      .then([
        {
          type: 'AlertResolved',
          data: {
            ...fact('record_missing', T3),
            severity: 'critical',
            occurred_at: T3,
            raised_at: T1,
            figures: allLive,
            threshold: RULES.record_missing.threshold,
          },
        },
      ]);
  });

  it('firing again between clear checks restarts the streak instead of raising twice', () => {
    const firstClear: AlertEvent = {
      type: 'AlertClearObserved',
      data: { ...fact('record_missing', T2), clear_streak: 1 },
    };
    const recurred: AlertEvent = { type: 'AlertRecurred', data: { ...fact('record_missing', T3), figures: missing } };
    spec
      .given([raised(T1, missing), firstClear])
      .when(check(T3, 'firing', missing))
      .then([recurred]);
    // After the restart one clear check is again not enough.
    spec
      .given([raised(T1, missing), firstClear, recurred])
      .when(check(T4, 'clear', allLive))
      .then([{ type: 'AlertClearObserved', data: { ...fact('record_missing', T4), clear_streak: 1 } }]);
  });

  it('a daily rule resolves on one clear day after the breach, and a day judged late changes nothing', () => {
    const dayRaised: AlertEvent = {
      type: 'AlertRaised',
      data: {
        ...fact('dmarc_pass_rate', '2026-05-02'),
        severity: 'warning',
        occurred_at: '2026-05-02T00:00:00.000Z',
        figures: { day: '2026-05-02', messages: 200, pass_rate: 0.5 },
        threshold: RULES.dmarc_pass_rate.threshold,
      },
    };
    spec
      .given([])
      .when(day('2026-05-02', 'firing', 0.5))
      .then([dayRaised]);
    spec
      .given([dayRaised])
      .when(day('2026-05-01', 'clear', 1))
      .then([]);
    spec
      .given([dayRaised])
      .when(day('2026-05-03', 'clear', 0.97))
      .then([
        {
          type: 'AlertResolved',
          data: {
            ...fact('dmarc_pass_rate', '2026-05-03'),
            severity: 'warning',
            occurred_at: '2026-05-03T00:00:00.000Z',
            raised_at: '2026-05-02T00:00:00.000Z',
            figures: { day: '2026-05-03', messages: 200, pass_rate: 0.97 },
            threshold: RULES.dmarc_pass_rate.threshold,
          },
        },
      ]);
  });
});
