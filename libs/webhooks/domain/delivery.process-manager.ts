import { RecordedEvent } from '../../eventstore/event-store.port';
import { ProcessManager, ProcessTrigger } from '../../consumers/process-manager';
import { OutboxEvent, WebhookEvent } from './webhook.events';

/** An endpoint failing without a success for this long is disabled (contract §19). */
export const GIVE_UP_AFTER_MS = 5 * 86_400_000;

export type DeliveryFact =
  /** Something to send was added to the outbox at `revision` (an event, or a redelivery request). */
  | { type: 'queued'; account_id: number; revision: number }
  | {
      type: 'attempted';
      account_id: number;
      command_id: string;
      revision: number;
      attempt: number;
      succeeded: boolean;
      /** The last item the command sent: the batch is over. */
      last: boolean;
      attempted_at: string;
      next_attempt_at: string | null;
    }
  | { type: 'enabled' }
  | { type: 'disabled' }
  | { type: 'deleted' };

export type DeliveryCommand =
  /**
   * Send, in outbox order, what was queued after revision `after` (a batch of up to
   * MAX_BATCH items), one at a time, stopping at the first failure; `headAttempt` (> 0)
   * numbers the first item's try when it is a retry.
   */
  | { type: 'DeliverWebhook'; webhookId: string; accountId: number; after: number; headAttempt: number }
  | { type: 'DisableFailingWebhook'; webhookId: string; accountId: number };

export interface DeliveryState {
  accountId: number | null;
  /** False once disabled or deleted: what is queued then is skipped (never sent later). */
  open: boolean;
  /** The highest outbox revision of something to send. */
  lastQueued: number;
  /** Everything queued at or below this revision is done: delivered, or skipped while disabled. */
  deliveredUpTo: number;
  /** The command out, until its last result comes back. */
  batch: string | null;
  /** The failed item waiting for its retry timer. */
  retry: { revision: number; attempt: number } | null;
  /** When the current run of failures began (the first failed attempt since the last success). */
  failingSince: string | null;
}

export const deliverCommandId = (webhookId: string, after: number, headAttempt: number) =>
  `webhook-deliver:${webhookId}:${after}:${headAttempt}`;
const retryTimer = (r: { revision: number; attempt: number }) => `retry:${r.revision}:${r.attempt}`;

const deliver = (webhookId: string, accountId: number, after: number, headAttempt: number) => ({
  type: 'send' as const,
  commandId: deliverCommandId(webhookId, after, headAttempt),
  command: { type: 'DeliverWebhook' as const, webhookId, accountId, after, headAttempt },
});

const givesUp = (s: DeliveryState, failedAt: string) =>
  Date.parse(failedAt) - Date.parse(s.failingSince ?? failedAt) >= GIVE_UP_AFTER_MS;
const idle = (s: DeliveryState) => s.open && s.batch === null && s.retry === null;
const matches = (s: DeliveryState, f: { command_id: string }) => s.batch !== null && s.batch === f.command_id;

/**
 * The delivery process of one endpoint (process id = webhook id). The queue is the
 * endpoint's outbox stream itself (revisions in order), so the state stays a few numbers
 * however long a receiver is down: what was delivered up to which revision, what is
 * queued up to which, the one command out. A command sends a batch in order and reports
 * each item; a failure stops the batch and schedules the retry of that item at the
 * `next_attempt_at` the sender chose (backoff with jitter: randomness stays out of here),
 * and nothing behind it goes first. An endpoint failing for 5 days is disabled and what it
 * had queued is skipped.
 */
export const webhookDeliveryProcess: ProcessManager<DeliveryState, DeliveryFact, DeliveryCommand> = {
  name: 'webhook-deliveries',
  observes: [
    'WebhookEventQueued',
    'WebhookRedeliveryRequested',
    'WebhookDeliveryAttempted',
    'WebhookEnabled',
    'WebhookDisabled',
    'WebhookDeleted',
  ],

  observe(event: RecordedEvent) {
    const e = { type: event.type, data: event.data } as OutboxEvent | WebhookEvent;
    switch (e.type) {
      case 'WebhookEventQueued':
        // Only the last event of an append wakes the process: it says how far the queue goes.
        return e.data.wake === false
          ? null
          : {
              process: e.data.webhook_id,
              fact: { type: 'queued', account_id: e.data.account_id, revision: event.revision },
            };
      case 'WebhookRedeliveryRequested':
        return {
          process: e.data.webhook_id,
          fact: { type: 'queued', account_id: e.data.account_id, revision: event.revision },
        };
      case 'WebhookDeliveryAttempted': {
        const d = e.data;
        // The batch's items before its last say nothing the last does not (it carries the highest revision, or the failure).
        if (!d.last) return null;
        return {
          process: d.webhook_id,
          fact: {
            type: 'attempted',
            account_id: d.account_id,
            command_id: d.command_id,
            revision: d.revision,
            attempt: d.attempt,
            succeeded: d.status === 'succeeded',
            last: d.last,
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

  initialState: () => ({
    accountId: null,
    open: true,
    lastQueued: -1,
    deliveredUpTo: -1,
    batch: null,
    retry: null,
    failingSince: null,
  }),

  evolve(s, t: ProcessTrigger<DeliveryFact>) {
    if (t.kind === 'timer') {
      return s.retry && t.timerId === retryTimer(s.retry)
        ? { ...s, retry: null, batch: deliverCommandId(t.process, s.deliveredUpTo, s.retry.attempt + 1) }
        : s;
    }
    const f = t.fact;
    switch (f.type) {
      case 'queued': {
        const next = { ...s, accountId: f.account_id, lastQueued: Math.max(s.lastQueued, f.revision) };
        if (!s.open) return { ...next, deliveredUpTo: next.lastQueued };
        return idle(s) && f.revision > s.deliveredUpTo
          ? { ...next, batch: deliverCommandId(t.process, s.deliveredUpTo, 0) }
          : next;
      }
      case 'attempted': {
        if (!matches(s, f)) return s;
        if (f.succeeded) {
          const done = {
            ...s,
            failingSince: null,
            deliveredUpTo: Math.max(s.deliveredUpTo, f.revision),
            batch: f.last ? null : s.batch,
          };
          return f.last && done.lastQueued > done.deliveredUpTo
            ? { ...done, batch: deliverCommandId(t.process, done.deliveredUpTo, 0) }
            : done;
        }
        if (givesUp(s, f.attempted_at)) return { ...s, open: false, batch: null, deliveredUpTo: s.lastQueued };
        return {
          ...s,
          batch: null,
          failingSince: s.failingSince ?? f.attempted_at,
          retry: { revision: f.revision, attempt: f.attempt },
        };
      }
      case 'enabled':
        return { ...s, open: true, failingSince: null };
      case 'disabled':
      case 'deleted':
        return { ...s, open: false, batch: null, retry: null, deliveredUpTo: s.lastQueued };
    }
  },

  decide(t, s) {
    const webhookId = t.process;
    if (t.kind === 'timer') {
      if (!s.retry || t.timerId !== retryTimer(s.retry) || s.accountId === null) return [];
      return [deliver(webhookId, s.accountId, s.deliveredUpTo, s.retry.attempt + 1)];
    }
    const f = t.fact;
    switch (f.type) {
      case 'queued':
        return idle(s) && f.revision > s.deliveredUpTo ? [deliver(webhookId, f.account_id, s.deliveredUpTo, 0)] : [];
      case 'attempted': {
        if (!matches(s, f)) return [];
        if (f.succeeded) {
          const upTo = Math.max(s.deliveredUpTo, f.revision);
          return f.last && s.lastQueued > upTo ? [deliver(webhookId, f.account_id, upTo, 0)] : [];
        }
        if (givesUp(s, f.attempted_at))
          return [
            {
              type: 'send',
              commandId: `webhook-disable:${webhookId}:${s.failingSince}`,
              command: { type: 'DisableFailingWebhook', webhookId, accountId: f.account_id },
            },
          ];
        return [{ type: 'schedule', timerId: retryTimer(f), dueAt: f.next_attempt_at ?? f.attempted_at }];
      }
      case 'disabled':
      case 'deleted':
        return s.retry ? [{ type: 'cancel', timerId: retryTimer(s.retry) }] : [];
      case 'enabled':
        return [];
    }
  },
};
