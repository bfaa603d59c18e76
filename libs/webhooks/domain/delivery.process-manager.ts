import { RecordedEvent } from '../../eventstore/event-store.port';
import { ProcessManager, ProcessTrigger } from '../../consumers/process-manager';
import { OutboxEvent, WebhookEvent } from './webhook.events';

/** An endpoint failing without a success for this long is disabled (contract §19). */
export const GIVE_UP_AFTER_MS = 5 * 86_400_000;

/** One event to deliver: where its body is (the queued event's revision in the outbox stream) and its first attempt number. */
export interface DeliveryItem {
  event_id: string;
  event_type: string;
  revision: number;
  /** The attempt number the next try carries: 1 for a new event, the next free one for a redelivery. */
  attempt: number;
  /**
   * A redelivery's request id: part of its commands' ids, so a redelivery numbered like an
   * attempt already made (the delivery log lagging) is still sent, never taken for a repeat.
   */
  request?: string;
}

export type DeliveryFact =
  | ({ type: 'queued'; account_id: number } & DeliveryItem)
  | {
      type: 'attempted';
      account_id: number;
      event_id: string;
      attempt: number;
      request?: string;
      succeeded: boolean;
      attempted_at: string;
      next_attempt_at: string | null;
    }
  | { type: 'enabled' }
  | { type: 'disabled' }
  | { type: 'deleted' };

export type DeliveryCommand =
  | { type: 'DeliverWebhook'; webhookId: string; accountId: number; eventId: string; eventType: string; revision: number; attempt: number; request?: string }
  | { type: 'DisableFailingWebhook'; webhookId: string; accountId: number };

export interface DeliveryState {
  accountId: number | null;
  /** False once disabled or deleted: events then queued are dropped (never sent later). */
  open: boolean;
  /** The one delivery under way or waiting for its retry; the rest wait behind it, in order. */
  current: DeliveryItem | null;
  queue: readonly DeliveryItem[];
  /** When the current run of failures began (the first failed attempt since the last success). */
  failingSince: string | null;
}

export const deliverCommandId = (webhookId: string, item: DeliveryItem) => `webhook-deliver:${webhookId}:${item.event_id}:${item.attempt}${item.request ? `:${item.request}` : ''}`;
const retryTimer = (item: DeliveryItem) => `retry:${item.event_id}:${item.attempt}${item.request ? `:${item.request}` : ''}`;

const deliver = (webhookId: string, accountId: number, item: DeliveryItem) => ({
  type: 'send' as const,
  commandId: deliverCommandId(webhookId, item),
  command: {
    type: 'DeliverWebhook' as const,
    webhookId,
    accountId,
    eventId: item.event_id,
    eventType: item.event_type,
    revision: item.revision,
    attempt: item.attempt,
    ...(item.request ? { request: item.request } : {}),
  },
});

const isCurrent = (s: DeliveryState, f: { event_id: string; attempt: number; request?: string }) =>
  s.current !== null && s.current.event_id === f.event_id && s.current.attempt === f.attempt && s.current.request === f.request;

const givesUp = (s: DeliveryState, failedAt: string) => Date.parse(failedAt) - Date.parse(s.failingSince ?? failedAt) >= GIVE_UP_AFTER_MS;

const stopped = (s: DeliveryState): DeliveryState => ({ ...s, open: false, current: null, queue: [] });

/**
 * The delivery process of one endpoint (process id = webhook id): the durable queue of
 * what the outbox holds for it, one delivery in flight at a time so deliveries arrive in
 * order. A failed attempt schedules its retry at the `next_attempt_at` the sender chose
 * (backoff with jitter: randomness stays out of here); a success sends the next event. An
 * endpoint whose failures have lasted 5 days is disabled and its queue dropped.
 */
export const webhookDeliveryProcess: ProcessManager<DeliveryState, DeliveryFact, DeliveryCommand> = {
  name: 'webhook-deliveries',
  observes: ['WebhookEventQueued', 'WebhookRedeliveryRequested', 'WebhookDeliveryAttempted', 'WebhookEnabled', 'WebhookDisabled', 'WebhookDeleted'],

  observe(event: RecordedEvent) {
    const e = { type: event.type, data: event.data } as OutboxEvent | WebhookEvent;
    switch (e.type) {
      case 'WebhookEventQueued':
        return {
          process: e.data.webhook_id,
          fact: { type: 'queued', account_id: e.data.account_id, event_id: e.data.payload.id, event_type: e.data.payload.type, revision: event.revision, attempt: 1 },
        };
      case 'WebhookRedeliveryRequested':
        return {
          process: e.data.webhook_id,
          fact: {
            type: 'queued',
            account_id: e.data.account_id,
            event_id: e.data.event_id,
            event_type: e.data.event_type,
            revision: e.data.queued_revision,
            attempt: e.data.attempt,
          },
        };
      case 'WebhookDeliveryAttempted': {
        const d = e.data;
        return {
          process: d.webhook_id,
          fact: {
            type: 'attempted',
            account_id: d.account_id,
            event_id: d.event_id,
            attempt: d.attempt,
            ...(d.request ? { request: d.request } : {}),
            succeeded: d.status === 'succeeded',
            attempted_at: d.attempted_at,
            next_attempt_at: d.next_attempt_at,
          },
        };
      }
      case 'WebhookEnabled':
        return { process: e.data.webhook_id, fact: { type: 'enabled' } };
      case 'WebhookDisabled':
        return { process: e.data.webhook_id, fact: { type: 'disabled' } };
      case 'WebhookDeleted':
        return { process: e.data.webhook_id, fact: { type: 'deleted' } };
      default:
        return null;
    }
  },

  initialState: () => ({ accountId: null, open: true, current: null, queue: [], failingSince: null }),

  evolve(s, t: ProcessTrigger<DeliveryFact>) {
    if (t.kind === 'timer') {
      // The retry fired: the current delivery's next attempt is under way.
      return s.current && t.timerId === retryTimer(s.current) ? { ...s, current: { ...s.current, attempt: s.current.attempt + 1 } } : s;
    }
    const f = t.fact;
    switch (f.type) {
      case 'queued': {
        if (!s.open) return s;
        const { type: _t, account_id, ...item } = f;
        return s.current ? { ...s, accountId: account_id, queue: [...s.queue, item] } : { ...s, accountId: account_id, current: item };
      }
      case 'attempted': {
        if (!isCurrent(s, f)) return s;
        if (f.succeeded) {
          const [next, ...rest] = s.queue;
          return { ...s, failingSince: null, current: next ?? null, queue: rest };
        }
        if (givesUp(s, f.attempted_at)) return stopped(s);
        return { ...s, failingSince: s.failingSince ?? f.attempted_at };
      }
      case 'enabled':
        return { ...s, open: true, failingSince: null };
      case 'disabled':
      case 'deleted':
        return stopped(s);
    }
  },

  decide(t, s) {
    const webhookId = t.process;
    if (t.kind === 'timer') {
      if (!s.current || t.timerId !== retryTimer(s.current) || s.accountId === null) return [];
      return [deliver(webhookId, s.accountId, { ...s.current, attempt: s.current.attempt + 1 })];
    }
    const f = t.fact;
    switch (f.type) {
      case 'queued':
        return s.open && !s.current ? [deliver(webhookId, f.account_id, f)] : [];
      case 'attempted': {
        if (!isCurrent(s, f)) return [];
        if (f.succeeded) return s.queue.length ? [deliver(webhookId, f.account_id, s.queue[0])] : [];
        if (givesUp(s, f.attempted_at))
          return [{ type: 'send', commandId: `webhook-disable:${webhookId}:${s.failingSince}`, command: { type: 'DisableFailingWebhook', webhookId, accountId: f.account_id } }];
        return [{ type: 'schedule', timerId: retryTimer(s.current!), dueAt: f.next_attempt_at ?? f.attempted_at }];
      }
      case 'disabled':
      case 'deleted':
        return s.current ? [{ type: 'cancel', timerId: retryTimer(s.current) }] : [];
      case 'enabled':
        return [];
    }
  },
};
