import { ProcessFact, ProcessTrigger, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import { DeliveryCommand, DeliveryFact, webhookDeliveryProcess as pm } from './delivery.process-manager';

const { given } = processSpecFor(processStreamDecider(pm));
type Fact = ProcessFact<DeliveryFact, DeliveryCommand>;

const W = 'w1';
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
/** The injected clock of these specs: time only ever comes in on facts and timer firings. */
const at = (ms: number) => new Date(T0 + ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const cmd = (after: number, headAttempt = 0) => `webhook-deliver:${W}:${after}:${headAttempt}`;
const queued = (revision: number): DeliveryFact => ({ type: 'queued', account_id: 7, revision });
const attempted = (
  command: string,
  revision: number,
  attempt: number,
  ok: boolean,
  last: boolean,
  atMs: number,
  nextMs: number | null = null,
): DeliveryFact => ({
  type: 'attempted',
  account_id: 7,
  command_id: command,
  revision,
  attempt,
  succeeded: ok,
  last,
  attempted_at: at(atMs),
  next_attempt_at: nextMs === null ? null : at(nextMs),
});
const observed = (id: string, fact: DeliveryFact): Fact => ({
  type: 'ProcessEventObserved',
  data: { process: W, event_id: id, fact },
});
const issued = (after: number, headAttempt = 0): Fact => ({
  type: 'ProcessCommandIssued',
  data: {
    command_id: cmd(after, headAttempt),
    command: { type: 'DeliverWebhook', webhookId: W, accountId: 7, after, headAttempt },
  },
});
const scheduled = (revision: number, attempt: number, dueMs: number): Fact => ({
  type: 'ProcessTimerScheduled',
  data: { timer_id: `retry:${revision}:${attempt}`, due_at: at(dueMs) },
});
const firedFact = (revision: number, attempt: number, atMs: number): Fact => ({
  type: 'ProcessTimerFired',
  data: { process: W, timer_id: `retry:${revision}:${attempt}`, at: at(atMs) },
});
const when = (id: string, fact: DeliveryFact) =>
  [{ kind: 'observed', process: W, fact } as ProcessTrigger<DeliveryFact>, id] as const;
const fire = (revision: number, attempt: number, atMs: number): ProcessTrigger<DeliveryFact> => ({
  kind: 'timer',
  process: W,
  timerId: `retry:${revision}:${attempt}`,
  at: at(atMs),
});

describe('webhook delivery process manager (one endpoint; its outbox stream is the queue)', () => {
  const first = [observed('q0', queued(0)), issued(-1)];

  it('something queued on an idle endpoint is sent at once: a batch of what follows the last delivered revision', () => {
    given([])
      .when(...when('q0', queued(0)))
      .then(first);
  });

  it('one batch out per endpoint: what is queued meanwhile waits, and goes in the next batch once the last result is in', () => {
    const q1 = observed('q1', queued(1));
    given(first)
      .when(...when('q1', queued(1)))
      .then([q1]);
    given([...first, q1])
      .when(...when('a0', attempted(cmd(-1), 0, 1, true, true, 100)))
      .then([observed('a0', attempted(cmd(-1), 0, 1, true, true, 100)), issued(0)]);
  });

  it('items the batch already sent beyond what the process had heard of are not sent again', () => {
    const done = [
      ...first,
      observed('a0', attempted(cmd(-1), 0, 1, true, false, 100)),
      observed('a1', attempted(cmd(-1), 1, 1, true, true, 110)),
    ];
    given(done)
      .when(...when('q1', queued(1)))
      .then([observed('q1', queued(1))]);
  });

  it('a failure stops the batch and schedules the retry of that item at the sender’s next_attempt_at; the firing sends it first, attempt 2', () => {
    const failed = observed('a0', attempted(cmd(-1), 0, 1, false, true, 100, 2_100));
    given([...first, observed('q1', queued(1))])
      .when(...when('a0', attempted(cmd(-1), 0, 1, false, true, 100, 2_100)))
      .then([failed, scheduled(0, 1, 2_100)]);
    given([...first, observed('q1', queued(1)), failed, scheduled(0, 1, 2_100)])
      .when(fire(0, 1, 2_100))
      .then([firedFact(0, 1, 2_100), issued(-1, 2)]);
  });

  it('a result of another command (a repeat after a crash) changes nothing', () => {
    const done = [...first, observed('a0', attempted(cmd(-1), 0, 1, true, true, 100))];
    given(done)
      .when(...when('a0-again', attempted(cmd(-1), 0, 1, false, true, 100, 2_000)))
      .then([observed('a0-again', attempted(cmd(-1), 0, 1, false, true, 100, 2_000))]);
  });

  it('an endpoint failing for 5 days is disabled (the 5-day rule runs on the facts’ clock)', () => {
    // Failures from T0, retried hourly.
    const history: Fact[] = [
      ...first,
      observed('a1', attempted(cmd(-1), 0, 1, false, true, 0, HOUR)),
      scheduled(0, 1, HOUR),
    ];
    let attempt = 1;
    for (let t = HOUR; t < 5 * DAY; t += HOUR) {
      attempt += 1;
      history.push(firedFact(0, attempt - 1, t), issued(-1, attempt));
      if (t + HOUR < 5 * DAY)
        history.push(
          observed(`a${attempt}`, attempted(cmd(-1, attempt), 0, attempt, false, true, t, t + HOUR)),
          scheduled(0, attempt, t + HOUR),
        );
    }
    const lastTry = 5 * DAY - HOUR;
    given(history)
      .when(...when('short', attempted(cmd(-1, attempt), 0, attempt, false, true, lastTry, 5 * DAY)))
      .then([
        observed('short', attempted(cmd(-1, attempt), 0, attempt, false, true, lastTry, 5 * DAY)),
        scheduled(0, attempt, 5 * DAY),
      ]);
    const more = [
      ...history,
      observed('short', attempted(cmd(-1, attempt), 0, attempt, false, true, lastTry, 5 * DAY)),
      scheduled(0, attempt, 5 * DAY),
      firedFact(0, attempt, 5 * DAY),
      issued(-1, attempt + 1),
    ];
    given(more)
      .when(...when('five-days', attempted(cmd(-1, attempt + 1), 0, attempt + 1, false, true, 5 * DAY, 5 * DAY + HOUR)))
      .then([
        observed('five-days', attempted(cmd(-1, attempt + 1), 0, attempt + 1, false, true, 5 * DAY, 5 * DAY + HOUR)),
        {
          type: 'ProcessCommandIssued',
          data: {
            command_id: `webhook-disable:${W}:${at(0)}`,
            command: { type: 'DisableFailingWebhook', webhookId: W, accountId: 7 },
          },
        },
      ]);
  });

  it('a success in between restarts the 5-day count', () => {
    const facts: Fact[] = [
      ...first,
      observed('a1', attempted(cmd(-1), 0, 1, false, true, 0, 1_000)),
      scheduled(0, 1, 1_000),
      firedFact(0, 1, 1_000),
      issued(-1, 2),
      observed('a2', attempted(cmd(-1, 2), 0, 2, true, true, 1_000)),
      observed('q1', queued(1)),
      issued(0),
    ];
    given(facts)
      .when(...when('a3', attempted(cmd(0), 1, 1, false, true, 5 * DAY + 10, 5 * DAY + 2_000)))
      .then([
        observed('a3', attempted(cmd(0), 1, 1, false, true, 5 * DAY + 10, 5 * DAY + 2_000)),
        scheduled(1, 1, 5 * DAY + 2_000),
      ]);
  });

  it('disabling cancels the pending retry and skips what was queued; what is queued while disabled is never sent, even after enabling', () => {
    const failed = [...first, observed('a0', attempted(cmd(-1), 0, 1, false, true, 0, 2_000)), scheduled(0, 1, 2_000)];
    given(failed)
      .when(...when('d', { type: 'disabled' }))
      .then([observed('d', { type: 'disabled' }), { type: 'ProcessTimerCancelled', data: { timer_id: 'retry:0:1' } }]);
    const disabled = [
      ...failed,
      observed('d', { type: 'disabled' }),
      { type: 'ProcessTimerCancelled', data: { timer_id: 'retry:0:1' } } as Fact,
    ];
    given(disabled)
      .when(...when('q1', queued(1)))
      .then([observed('q1', queued(1))]);
    given([...disabled, observed('q1', queued(1)), observed('en', { type: 'enabled' })])
      .when(...when('q2', queued(2)))
      .then([observed('q2', queued(2)), issued(1)]);
  });

  it('observes the outbox and the endpoint switches, each in the endpoint’s process', () => {
    const event = (type: string, data: object, revision = 0) =>
      ({
        id: 'x',
        streamId: 's',
        revision,
        type,
        data,
        metadata: {},
        position: { commit: 1n, prepare: 1n },
        created: new Date(),
      }) as any;
    expect(
      pm.observe(
        event('WebhookEventQueued', { webhook_id: W, account_id: 7, payload: { id: 'e1', type: 'zone.changed' } }, 3),
      ),
    ).toEqual({
      process: W,
      fact: { type: 'queued', account_id: 7, revision: 3 },
    });
    expect(
      pm.observe(event('WebhookRedeliveryRequested', { webhook_id: W, account_id: 7, queued_revision: 3 }, 9)),
    ).toEqual({
      process: W,
      fact: { type: 'queued', account_id: 7, revision: 9 },
    });
    // Only the last event of an append, and only a batch's last outcome, wake the process.
    expect(
      pm.observe(
        event(
          'WebhookEventQueued',
          { webhook_id: W, account_id: 7, payload: { id: 'e1', type: 'zone.changed' }, wake: false },
          2,
        ),
      ),
    ).toBeNull();
    expect(
      pm.observe(
        event('WebhookDeliveryAttempted', {
          webhook_id: W,
          account_id: 7,
          last: false,
          status: 'succeeded',
          revision: 2,
        }),
      ),
    ).toBeNull();
    expect(pm.observe(event('WebhookDisabled', { webhook_id: W }))).toEqual({ process: W, fact: { type: 'disabled' } });
    expect(pm.observe(event('WebhookCreated', { webhook_id: W }))).toBeNull();
  });
});
