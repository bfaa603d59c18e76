import { dailyJobProcess, DailyJobFact, nextOccurrence, RunDailyJob } from './daily-job.process-manager';
import { ProcessFact, ProcessTrigger, processStreamDecider } from './process-manager';
import { processSpecFor } from '../shared/testing/process-manager-spec';

const pm = dailyJobProcess('dmarc-nightly', { hour: 2, minute: 0 }, ['DmarcWizardStarted']);
type Fact = ProcessFact<DailyJobFact, RunDailyJob>;

const { given } = processSpecFor(processStreamDecider(pm));

const work = (at: string): ProcessTrigger<DailyJobFact> => ({
  kind: 'observed',
  process: 'schedule',
  fact: { type: 'work_appeared', at },
});
const observed = (id: string, at: string): Fact => ({
  type: 'ProcessEventObserved',
  data: { process: 'schedule', event_id: id, fact: { type: 'work_appeared', at } },
});
const scheduled = (night: string): Fact => ({
  type: 'ProcessTimerScheduled',
  data: { timer_id: `night:${night}`, due_at: `${night}T02:00:00.000Z` },
});
const fire = (night: string, at: string): ProcessTrigger<DailyJobFact> => ({
  kind: 'timer',
  process: 'schedule',
  timerId: `night:${night}`,
  at,
});

describe('daily job process manager', () => {
  it('the next occurrence is strictly after the given time, the same day or the next', () => {
    expect(nextOccurrence('2026-03-01T01:59:59.000Z', { hour: 2, minute: 0 })).toBe('2026-03-01T02:00:00.000Z');
    expect(nextOccurrence('2026-03-01T02:00:00.000Z', { hour: 2, minute: 0 })).toBe('2026-03-02T02:00:00.000Z');
    expect(nextOccurrence('2026-12-31T23:00:00.000Z', { hour: 3, minute: 17 })).toBe('2027-01-01T03:17:00.000Z');
  });

  it('the first event with work schedules the coming night', () => {
    given([])
      .when(work('2026-03-01T10:00:00.000Z'), 'e1')
      .then([observed('e1', '2026-03-01T10:00:00.000Z'), scheduled('2026-03-02')]);
  });

  it('later events while a night is pending schedule nothing more; a redelivered one records nothing', () => {
    const history = [observed('e1', '2026-03-01T10:00:00.000Z'), scheduled('2026-03-02')];
    given(history)
      .when(work('2026-03-01T11:00:00.000Z'), 'e2')
      .then([observed('e2', '2026-03-01T11:00:00.000Z')]);
    given(history).when(work('2026-03-01T10:00:00.000Z'), 'e1').then([]);
  });

  it('a night firing sends the job with an id derived from the night, and schedules the next night', () => {
    given([observed('e1', '2026-03-01T10:00:00.000Z'), scheduled('2026-03-02')])
      .when(fire('2026-03-02', '2026-03-02T02:00:01.000Z'))
      .then([
        {
          type: 'ProcessTimerFired',
          data: { process: 'schedule', timer_id: 'night:2026-03-02', at: '2026-03-02T02:00:01.000Z' },
        },
        {
          type: 'ProcessCommandIssued',
          data: {
            command_id: 'dmarc-nightly:2026-03-02',
            command: { type: 'RunDailyJob', job: 'dmarc-nightly', night: '2026-03-02', at: '2026-03-02T02:00:01.000Z' },
          },
        },
        scheduled('2026-03-03'),
      ]);
  });

  it('after a long stop the late firing runs once and schedules the night after it (missed nights are not replayed)', () => {
    given([observed('e1', '2026-03-01T10:00:00.000Z'), scheduled('2026-03-02')])
      .when(fire('2026-03-02', '2026-03-05T09:00:00.000Z'))
      .then([
        {
          type: 'ProcessTimerFired',
          data: { process: 'schedule', timer_id: 'night:2026-03-02', at: '2026-03-05T09:00:00.000Z' },
        },
        {
          type: 'ProcessCommandIssued',
          data: {
            command_id: 'dmarc-nightly:2026-03-02',
            command: { type: 'RunDailyJob', job: 'dmarc-nightly', night: '2026-03-02', at: '2026-03-05T09:00:00.000Z' },
          },
        },
        scheduled('2026-03-06'),
      ]);
  });

  it('a night that already fired does not fire again', () => {
    const firedNight: Fact = {
      type: 'ProcessTimerFired',
      data: { process: 'schedule', timer_id: 'night:2026-03-02', at: '2026-03-02T02:00:00.000Z' },
    };
    given([observed('e1', '2026-03-01T10:00:00.000Z'), scheduled('2026-03-02'), firedNight, scheduled('2026-03-03')])
      .when(fire('2026-03-02', '2026-03-02T02:00:05.000Z'))
      .then([]);
  });
});
