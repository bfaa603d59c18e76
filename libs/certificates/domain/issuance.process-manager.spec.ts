import { ProcessFact, ProcessTrigger, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import { CertificateEvent } from './certificate.events';
import { IssuanceFact, issuanceProcess, RunIssuanceStepCommand } from './issuance.process-manager';

type Fact = ProcessFact<IssuanceFact, RunIssuanceStepCommand>;

const DELAY_MS = 4000;
const pm = issuanceProcess(DELAY_MS);
const CERT = 'c-1';
const T0 = '2026-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const { given } = processSpecFor(processStreamDecider(pm));

const fact = (
  event: IssuanceFact['event'],
  revision: number,
  waitUntil: string | null = null,
  when = at(revision * 100),
): IssuanceFact => ({
  event,
  revision,
  at: when,
  wait_until: waitUntil,
});
const seen = (f: IssuanceFact): ProcessTrigger<IssuanceFact> => ({ kind: 'observed', process: CERT, fact: f });
const observed = (f: IssuanceFact): Fact => ({
  type: 'ProcessEventObserved',
  data: { process: CERT, event_id: `e${f.revision}`, fact: f },
});
const step = (revision: number): Fact => ({
  type: 'ProcessCommandIssued',
  data: {
    command_id: `certificate-issuance:${CERT}:${revision}`,
    command: { type: 'RunIssuanceStep', certificateId: CERT, revision },
  },
});
const scheduled = (revision: number, dueAt: string): Fact => ({
  type: 'ProcessTimerScheduled',
  data: { timer_id: `wait:${revision}`, due_at: dueAt },
});
const fired = (revision: number, when: string): ProcessTrigger<IssuanceFact> => ({
  kind: 'timer',
  process: CERT,
  timerId: `wait:${revision}`,
  at: when,
});
const firedFact = (revision: number, when: string): Fact => ({
  type: 'ProcessTimerFired',
  data: { process: CERT, timer_id: `wait:${revision}`, at: when },
});

/** Through the publication of the challenge records (revision 3), whose propagation wait is pending. */
const published = fact('ChallengeRecordsPublished', 3, at(300 + DELAY_MS), at(300));
const throughPublished: Fact[] = [
  observed(fact('CertificateRequested', 0)),
  step(0),
  observed(fact('AcmeOrderRequested', 1)),
  step(1),
  observed(fact('AcmeOrderPlaced', 2)),
  step(2),
  observed(published),
  scheduled(3, at(300 + DELAY_MS)),
];

describe('certificate issuance process manager', () => {
  it('a certificate requested runs its first step, with an id derived from the certificate and the stream revision', () => {
    given([])
      .when(seen(fact('CertificateRequested', 0)), 'e0')
      .then([observed(fact('CertificateRequested', 0)), step(0)]);
  });

  it("each step's outcome runs the next step; a redelivered event records nothing", () => {
    const history = [observed(fact('CertificateRequested', 0)), step(0)];
    given(history)
      .when(seen(fact('AcmeOrderRequested', 1)), 'e1')
      .then([observed(fact('AcmeOrderRequested', 1)), step(1)]);
    given(history)
      .when(seen(fact('CertificateRequested', 0)), 'e0')
      .then([]);
  });

  it('challenge records published: the propagation delay is a timer, and its firing runs the next step', () => {
    given(throughPublished.slice(0, 6))
      .when(seen(published), 'e3')
      .then([observed(published), scheduled(3, at(300 + DELAY_MS))]);
    given(throughPublished)
      .when(fired(3, at(300 + DELAY_MS)))
      .then([firedFact(3, at(300 + DELAY_MS)), step(3)]);
  });

  it('a wait that ends at the event itself (no propagation delay) runs the step at once', () => {
    const now = fact('ChallengeRecordsPublished', 3, at(300), at(300));
    given(throughPublished.slice(0, 6))
      .when(seen(now), 'e3')
      .then([observed(now), step(3)]);
  });

  it('authorizations still pending: the next poll waits for next_poll_at; an outage waits for its retry_at', () => {
    const pending = fact('AuthorizationsPending', 5, at(2750), at(500));
    given([observed(fact('ChallengesAnswered', 4)), step(4)])
      .when(seen(pending), 'e5')
      .then([observed(pending), scheduled(5, at(2750))]);
    const deferred = fact('IssuanceStepDeferred', 5, at(1500), at(500));
    given([observed(fact('ChallengesAnswered', 4)), step(4)])
      .when(seen(deferred), 'e5')
      .then([observed(deferred), scheduled(5, at(1500))]);
  });

  it('a newer event (the certificate deleted) cancels the pending wait and runs its own step; the stale timer then does nothing', () => {
    const deleted = fact('CertificateDeleted', 4);
    given(throughPublished)
      .when(seen(deleted), 'e4')
      .then([observed(deleted), { type: 'ProcessTimerCancelled', data: { timer_id: 'wait:3' } }, step(4)]);
    given([
      ...throughPublished,
      observed(deleted),
      { type: 'ProcessTimerCancelled', data: { timer_id: 'wait:3' } },
      step(4),
    ])
      .when(fired(3, at(300 + DELAY_MS)))
      .then([]);
  });

  it('an event older than one already seen decides nothing', () => {
    const stale = fact('AcmeOrderPlaced', 2);
    given(throughPublished)
      .when(seen(stale), 'other-id')
      .then([{ type: 'ProcessEventObserved', data: { process: CERT, event_id: 'other-id', fact: stale } }]);
  });

  it('observes every event of the stream with its revision, and when the next step may run', () => {
    const event = (revision: number, e: CertificateEvent) =>
      ({
        id: 'x',
        streamId: `certificate-${CERT}`,
        revision,
        type: e.type,
        data: e.data,
        metadata: {},
        position: { commit: 1n, prepare: 1n },
        created: new Date(),
      }) as any;
    expect(
      pm.observe(event(3, { type: 'ChallengeRecordsPublished', data: { certificate_id: CERT, attempt: 1, at: T0 } })),
    ).toEqual({
      process: CERT,
      fact: { event: 'ChallengeRecordsPublished', revision: 3, at: T0, wait_until: at(DELAY_MS) },
    });
    const pending = pm.observe(
      event(5, {
        type: 'AuthorizationsPending',
        data: { certificate_id: CERT, attempt: 1, poll: 1, next_poll_at: at(250), at: T0 },
      }),
    );
    expect(pending?.fact.wait_until).toBe(at(250));
    const retry = pm.observe(
      event(6, {
        type: 'IssuanceStepDeferred',
        data: {
          certificate_id: CERT,
          attempt: 1,
          step: 'finalize',
          tries: 1,
          error: 'busy',
          retry_at: at(1000),
          at: T0,
        },
      }),
    );
    expect(retry?.fact.wait_until).toBe(at(1000));
    expect(
      pm.observe(
        event(7, {
          type: 'AutoRenewChanged',
          data: { certificate_id: CERT, auto_renew: true, next_renewal_at: null, at: T0 },
        }),
      )?.fact,
    ).toEqual({
      event: 'AutoRenewChanged',
      revision: 7,
      at: T0,
      wait_until: null,
    });
  });
});
