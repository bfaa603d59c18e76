import { ProcessFact, ProcessTrigger, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import { ExpireSetupCommand, SetupFact, setupDeadlineProcess as pm } from './setup-deadline.process-manager';

const { given } = processSpecFor(processStreamDecider(pm));

const SETUP = 'setup-1';
const started: SetupFact = { type: 'started', account_id: 7, expires_at: '2026-01-01T00:10:00.000Z' };
const observedStart: ProcessFact<SetupFact, ExpireSetupCommand> = {
  type: 'ProcessEventObserved',
  data: { process: SETUP, event_id: 'e1', fact: started },
};
const scheduled: ProcessFact<SetupFact, ExpireSetupCommand> = {
  type: 'ProcessTimerScheduled',
  data: { timer_id: 'deadline', due_at: started.expires_at },
};
const fired = (at = '2026-01-01T00:10:00.000Z'): ProcessTrigger<SetupFact> => ({
  kind: 'timer',
  process: SETUP,
  timerId: 'deadline',
  at,
});

describe('2FA setup deadline process manager', () => {
  it('a setup started schedules the deadline timer at its expires_at', () => {
    given([]).when({ kind: 'observed', process: SETUP, fact: started }, 'e1').then([observedStart, scheduled]);
  });

  it('the same event observed again (redelivered after a crash) records nothing', () => {
    given([observedStart, scheduled]).when({ kind: 'observed', process: SETUP, fact: started }, 'e1').then([]);
  });

  it('the deadline firing while the setup is pending sends ExpireTwoFactorSetup with an id derived from the setup', () => {
    given([observedStart, scheduled])
      .when(fired())
      .then([
        { type: 'ProcessTimerFired', data: { process: SETUP, timer_id: 'deadline', at: '2026-01-01T00:10:00.000Z' } },
        {
          type: 'ProcessCommandIssued',
          data: {
            command_id: `2fa-setup-expired:${SETUP}`,
            command: { type: 'ExpireTwoFactorSetup', accountId: 7, setupId: SETUP },
          },
        },
      ]);
  });

  it('a setup verified before its deadline cancels the timer; a later firing records nothing', () => {
    const ended: ProcessFact<SetupFact, ExpireSetupCommand> = {
      type: 'ProcessEventObserved',
      data: { process: SETUP, event_id: 'e2', fact: { type: 'ended' } },
    };
    given([observedStart, scheduled])
      .when({ kind: 'observed', process: SETUP, fact: { type: 'ended' } }, 'e2')
      .then([ended, { type: 'ProcessTimerCancelled', data: { timer_id: 'deadline' } }]);
    given([observedStart, scheduled, ended, { type: 'ProcessTimerCancelled', data: { timer_id: 'deadline' } }])
      .when(fired())
      .then([]);
  });

  it('a timer that already fired does not fire again', () => {
    given([
      observedStart,
      scheduled,
      { type: 'ProcessTimerFired', data: { process: SETUP, timer_id: 'deadline', at: '2026-01-01T00:10:00.000Z' } },
    ])
      .when(fired('2026-01-01T00:11:00.000Z'))
      .then([]);
  });

  it('observes only the 2FA streams, and records no secret of the setup', () => {
    const event = (type: string, streamId: string, data: object) =>
      ({
        id: 'x',
        streamId,
        revision: 0,
        type,
        data,
        metadata: {},
        position: { commit: 1n, prepare: 1n },
        created: new Date(),
      }) as any;
    expect(
      pm.observe(
        event('TwoFactorSetupStarted', 'twofactor-7', {
          setup_id: SETUP,
          secret_sealed: 's',
          token_hash: 'h',
          started_at: 'a',
          expires_at: started.expires_at,
        }),
      ),
    ).toEqual({ process: SETUP, fact: started });
    expect(pm.observe(event('TwoFactorEnabled', 'twofactor-7', { setup_id: SETUP }))).toEqual({
      process: SETUP,
      fact: { type: 'ended' },
    });
    expect(pm.observe(event('TwoFactorSetupStarted', 'other-7', { setup_id: SETUP }))).toBeNull();
  });
});
