import { ProcessFact, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import { certificateExpiryProcess as pm, ExpiryCommand, ExpiryFact } from './certificate-expiry.process-manager';

const { given } = processSpecFor(processStreamDecider(pm));
type Fact = ProcessFact<ExpiryFact, ExpiryCommand>;
const C = 'cert-1';
const issued = (id: string, expires: string): Fact => ({
  type: 'ProcessEventObserved',
  data: { process: C, event_id: id, fact: { type: 'issued', expires_at: expires } },
});

describe('certificate expiry notice process manager', () => {
  it('an issuance schedules the notice 14 days before expiry', () => {
    given([])
      .when({ kind: 'observed', process: C, fact: { type: 'issued', expires_at: '2026-06-01T00:00:00.000Z' } }, 'i1')
      .then([
        issued('i1', '2026-06-01T00:00:00.000Z'),
        {
          type: 'ProcessTimerScheduled',
          data: { timer_id: 'expiring:2026-06-01T00:00:00.000Z', due_at: '2026-05-18T00:00:00.000Z' },
        },
      ]);
  });

  it('a renewal replaces the notice; the firing sends one MarkCertificateExpiring for the expiry it was set for', () => {
    const first = [
      issued('i1', '2026-06-01T00:00:00.000Z'),
      {
        type: 'ProcessTimerScheduled',
        data: { timer_id: 'expiring:2026-06-01T00:00:00.000Z', due_at: '2026-05-18T00:00:00.000Z' },
      } as Fact,
    ];
    given(first)
      .when({ kind: 'observed', process: C, fact: { type: 'issued', expires_at: '2026-08-30T00:00:00.000Z' } }, 'i2')
      .then([
        issued('i2', '2026-08-30T00:00:00.000Z'),
        { type: 'ProcessTimerCancelled', data: { timer_id: 'expiring:2026-06-01T00:00:00.000Z' } },
        {
          type: 'ProcessTimerScheduled',
          data: { timer_id: 'expiring:2026-08-30T00:00:00.000Z', due_at: '2026-08-16T00:00:00.000Z' },
        },
      ]);
    given(first)
      .when({ kind: 'timer', process: C, timerId: 'expiring:2026-06-01T00:00:00.000Z', at: '2026-05-18T00:00:01.000Z' })
      .then([
        {
          type: 'ProcessTimerFired',
          data: { process: C, timer_id: 'expiring:2026-06-01T00:00:00.000Z', at: '2026-05-18T00:00:01.000Z' },
        },
        {
          type: 'ProcessCommandIssued',
          data: {
            command_id: `certificate-expiring:${C}:2026-06-01T00:00:00.000Z`,
            command: { type: 'MarkCertificateExpiring', certificateId: C, expiresAt: '2026-06-01T00:00:00.000Z' },
          },
        },
      ]);
  });

  it('deletion cancels the notice', () => {
    const first = [
      issued('i1', '2026-06-01T00:00:00.000Z'),
      {
        type: 'ProcessTimerScheduled',
        data: { timer_id: 'expiring:2026-06-01T00:00:00.000Z', due_at: '2026-05-18T00:00:00.000Z' },
      } as Fact,
    ];
    given(first)
      .when({ kind: 'observed', process: C, fact: { type: 'ended' } }, 'd')
      .then([
        { type: 'ProcessEventObserved', data: { process: C, event_id: 'd', fact: { type: 'ended' } } },
        { type: 'ProcessTimerCancelled', data: { timer_id: 'expiring:2026-06-01T00:00:00.000Z' } },
      ]);
  });
});
