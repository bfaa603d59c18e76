import { ProcessFact, ProcessTrigger, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import { DeliveryCommand, DeliveryFact, webhookDeliveryProcess as pm } from './delivery.process-manager';

const { given } = processSpecFor(processStreamDecider(pm));
type Fact = ProcessFact<DeliveryFact, DeliveryCommand>;

const W = 'w1';
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
/** The injected clock of these specs: time only ever comes in on facts and timer firings. */
const at = (ms: number) => new Date(T0 + ms).toISOString();
const DAY = 86_400_000;

const queued = (eventId: string, revision: number): DeliveryFact => ({ type: 'queued', account_id: 7, event_id: eventId, event_type: 'zone.changed', revision, attempt: 1 });
const attempted = (eventId: string, attempt: number, ok: boolean, atMs: number, nextMs: number | null = null): DeliveryFact => ({
  type: 'attempted',
  account_id: 7,
  event_id: eventId,
  attempt,
  succeeded: ok,
  attempted_at: at(atMs),
  next_attempt_at: nextMs === null ? null : at(nextMs),
});
const observed = (id: string, fact: DeliveryFact): Fact => ({ type: 'ProcessEventObserved', data: { process: W, event_id: id, fact } });
const issued = (eventId: string, attempt: number, revision: number): Fact => ({
  type: 'ProcessCommandIssued',
  data: {
    command_id: `webhook-deliver:${W}:${eventId}:${attempt}`,
    command: { type: 'DeliverWebhook', webhookId: W, accountId: 7, eventId, eventType: 'zone.changed', revision, attempt },
  },
});
const when = (id: string, fact: DeliveryFact) => [{ kind: 'observed', process: W, fact } as ProcessTrigger<DeliveryFact>, id] as const;
const fire = (timerId: string, atMs: number): ProcessTrigger<DeliveryFact> => ({ kind: 'timer', process: W, timerId, at: at(atMs) });

describe('webhook delivery process manager (one endpoint)', () => {
  const first = [observed('q1', queued('e1', 0)), issued('e1', 1, 0)];

  it('an event queued on an idle endpoint is delivered at once (attempt 1, id derived from endpoint, event and attempt)', () => {
    given([])
      .when(...when('q1', queued('e1', 0)))
      .then(first);
  });

  it('one delivery in flight per endpoint: the next event waits and goes once the first succeeded', () => {
    const second = observed('q2', queued('e2', 1));
    given(first)
      .when(...when('q2', queued('e2', 1)))
      .then([second]);
    given([...first, second])
      .when(...when('a1', attempted('e1', 1, true, 100)))
      .then([observed('a1', attempted('e1', 1, true, 100)), issued('e2', 1, 1)]);
  });

  it('a failure schedules the retry at the sender’s next_attempt_at; its firing sends attempt 2 of the same event, before anything queued behind it', () => {
    const failed = observed('a1', attempted('e1', 1, false, 100, 2_100));
    const scheduled: Fact = { type: 'ProcessTimerScheduled', data: { timer_id: 'retry:e1:1', due_at: at(2_100) } };
    given(first)
      .when(...when('a1', attempted('e1', 1, false, 100, 2_100)))
      .then([failed, scheduled]);
    given([...first, observed('q2', queued('e2', 1)), failed, scheduled])
      .when(fire('retry:e1:1', 2_100))
      .then([{ type: 'ProcessTimerFired', data: { process: W, timer_id: 'retry:e1:1', at: at(2_100) } }, issued('e1', 2, 0)]);
  });

  it('a result that is not the current attempt (a repeat after a crash) changes nothing', () => {
    given([...first, observed('a1', attempted('e1', 1, true, 100))])
      .when(...when('a1-again', attempted('e1', 1, true, 100)))
      .then([observed('a1-again', attempted('e1', 1, true, 100))]);
  });

  it('an endpoint failing for 5 days is disabled (the 5-day rule runs on the facts’ clock), and its queue dropped', () => {
    // Failures from T0, retried hourly: 4 days 23 h in, still retrying.
    const history: Fact[] = [...first, observed('a1', attempted('e1', 1, false, 0, 3_600_000))];
    let attempt = 1;
    for (let t = 3_600_000; t < 5 * DAY - 3_600_000; t += 3_600_000) {
      attempt += 1;
      history.push(
        { type: 'ProcessTimerFired', data: { process: W, timer_id: `retry:e1:${attempt - 1}`, at: at(t) } },
        issued('e1', attempt, 0),
        observed(`a${attempt}`, attempted('e1', attempt, false, t, t + 3_600_000)),
      );
    }
    const lastTry = 5 * DAY - 3_600_000;
    attempt += 1;
    history.push({ type: 'ProcessTimerFired', data: { process: W, timer_id: `retry:e1:${attempt - 1}`, at: at(lastTry) } }, issued('e1', attempt, 0));
    given(history)
      .when(...when('just-short', attempted('e1', attempt, false, lastTry, 5 * DAY)))
      .then([
        observed('just-short', attempted('e1', attempt, false, lastTry, 5 * DAY)),
        { type: 'ProcessTimerScheduled', data: { timer_id: `retry:e1:${attempt}`, due_at: at(5 * DAY) } },
      ]);
    const shortFact = observed('just-short', attempted('e1', attempt, false, lastTry, 5 * DAY));
    const next = [
      ...history,
      shortFact,
      { type: 'ProcessTimerScheduled', data: { timer_id: `retry:e1:${attempt}`, due_at: at(5 * DAY) } } as Fact,
      { type: 'ProcessTimerFired', data: { process: W, timer_id: `retry:e1:${attempt}`, at: at(5 * DAY) } } as Fact,
      issued('e1', attempt + 1, 0),
      observed('q9', queued('e9', 5)),
    ];
    given(next)
      .when(...when('five-days', attempted('e1', attempt + 1, false, 5 * DAY, 5 * DAY + 3_600_000)))
      .then([
        observed('five-days', attempted('e1', attempt + 1, false, 5 * DAY, 5 * DAY + 3_600_000)),
        { type: 'ProcessCommandIssued', data: { command_id: `webhook-disable:${W}:${at(0)}`, command: { type: 'DisableFailingWebhook', webhookId: W, accountId: 7 } } },
      ]);
  });

  it('a success in between restarts the 5-day count', () => {
    const facts: Fact[] = [
      ...first,
      observed('a1', attempted('e1', 1, false, 0, 1_000)),
      { type: 'ProcessTimerScheduled', data: { timer_id: 'retry:e1:1', due_at: at(1_000) } },
      { type: 'ProcessTimerFired', data: { process: W, timer_id: 'retry:e1:1', at: at(1_000) } },
      issued('e1', 2, 0),
      observed('a2', attempted('e1', 2, true, 1_000)),
      observed('q2', queued('e2', 1)),
      issued('e2', 1, 1),
    ];
    given(facts)
      .when(...when('a3', attempted('e2', 1, false, 5 * DAY + 10, 5 * DAY + 2_000)))
      .then([
        observed('a3', attempted('e2', 1, false, 5 * DAY + 10, 5 * DAY + 2_000)),
        { type: 'ProcessTimerScheduled', data: { timer_id: 'retry:e2:1', due_at: at(5 * DAY + 2_000) } },
      ]);
  });

  it('disabling cancels the pending retry; events queued while disabled are never sent, even after enabling', () => {
    const failed = [...first, observed('a1', attempted('e1', 1, false, 0, 2_000)), { type: 'ProcessTimerScheduled', data: { timer_id: 'retry:e1:1', due_at: at(2_000) } } as Fact];
    given(failed)
      .when(...when('d', { type: 'disabled' }))
      .then([observed('d', { type: 'disabled' }), { type: 'ProcessTimerCancelled', data: { timer_id: 'retry:e1:1' } }]);
    const disabled = [...failed, observed('d', { type: 'disabled' }), { type: 'ProcessTimerCancelled', data: { timer_id: 'retry:e1:1' } } as Fact];
    given(disabled)
      .when(...when('q2', queued('e2', 1)))
      .then([observed('q2', queued('e2', 1))]);
    given([...disabled, observed('q2', queued('e2', 1)), observed('en', { type: 'enabled' })])
      .when(...when('q3', queued('e3', 2)))
      .then([observed('q3', queued('e3', 2)), issued('e3', 1, 2)]);
  });

  it('a redelivery is queued like an event, with its own attempt number', () => {
    const redelivery: DeliveryFact = { type: 'queued', account_id: 7, event_id: 'e1', event_type: 'zone.changed', revision: 0, attempt: 4 };
    given([...first, observed('a1', attempted('e1', 1, true, 100))])
      .when(...when('r', redelivery))
      .then([observed('r', redelivery), issued('e1', 4, 0)]);
  });

  it('observes the outbox and the endpoint switches, each in the endpoint’s process', () => {
    const event = (type: string, data: object, revision = 0) =>
      ({ id: 'x', streamId: 's', revision, type, data, metadata: {}, position: { commit: 1n, prepare: 1n }, created: new Date() }) as any;
    expect(pm.observe(event('WebhookEventQueued', { webhook_id: W, account_id: 7, payload: { id: 'e1', type: 'zone.changed' } }, 3))).toEqual({
      process: W,
      fact: { type: 'queued', account_id: 7, event_id: 'e1', event_type: 'zone.changed', revision: 3, attempt: 1 },
    });
    expect(pm.observe(event('WebhookDisabled', { webhook_id: W }))).toEqual({ process: W, fact: { type: 'disabled' } });
    expect(pm.observe(event('WebhookCreated', { webhook_id: W }))).toBeNull();
  });
});
