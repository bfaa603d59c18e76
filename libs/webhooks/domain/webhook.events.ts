import { DomainEvent } from '../../shared/decider';

/**
 * An account's webhook endpoints live on one stream per account (`webhooks-<account>`), so
 * the per-plan endpoint limit is decided on one consistent set (like the monitor switches).
 * The signing secret is sealed (SecretBox, purpose WEBHOOK_SECRET_PURPOSE) before it
 * reaches an event; the plain secret is shown once, in the creation answer.
 */
export type WebhookCreated = DomainEvent<
  'WebhookCreated',
  {
    webhook_id: string;
    account_id: number;
    url: string;
    event_types: string[];
    description: string | null;
    secret_sealed: string;
    created_at: string;
  }
>;
export type WebhookUpdated = DomainEvent<
  'WebhookUpdated',
  {
    webhook_id: string;
    account_id: number;
    url?: string;
    event_types?: string[];
    description?: string | null;
    at: string;
  }
>;
export type WebhookEnabled = DomainEvent<'WebhookEnabled', { webhook_id: string; account_id: number; at: string }>;
/** `reason` tells a user's switch from the delivery process giving up after 5 days of failure (the notice). */
export type WebhookDisabled = DomainEvent<
  'WebhookDisabled',
  { webhook_id: string; account_id: number; reason: 'user' | 'failing'; disabled_reason: string | null; at: string }
>;
export type WebhookDeleted = DomainEvent<'WebhookDeleted', { webhook_id: string; account_id: number; at: string }>;

export type WebhookEvent = WebhookCreated | WebhookUpdated | WebhookEnabled | WebhookDisabled | WebhookDeleted;
export const WEBHOOK_ENDPOINT_EVENT_TYPES = [
  'WebhookCreated',
  'WebhookUpdated',
  'WebhookEnabled',
  'WebhookDisabled',
  'WebhookDeleted',
] as const satisfies readonly WebhookEvent['type'][];

export const webhooksStream = (accountId: number) => `webhooks-${accountId}`;
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

/**
 * The outbox: one stream per endpoint (`webhook-outbox-<id>`) holding what is to be sent
 * (`WebhookEventQueued`: the whole body, so every retry sends the same bytes; redelivery
 * requests), and beside it what each attempt did (`WebhookDeliveryAttempted`, on
 * `webhook-attempts-<id>`). Written with deterministic ids, so a
 * feeder or a delivery repeated after a crash writes once.
 */
export interface WebhookPayload {
  /** The underlying event's id: `webhook-id` on every attempt. */
  id: string;
  type: string;
  occurred_at: string;
  account_id: number;
  data: unknown;
}

/**
 * `wake: false` on all but the last event of one append: the delivery process needs to hear
 * only of the highest revision queued, so a busy batch costs it one step, not one per event.
 */
export type WebhookEventQueued = DomainEvent<
  'WebhookEventQueued',
  { webhook_id: string; account_id: number; payload: WebhookPayload; wake?: boolean }
>;

/** A manual redelivery of an event already queued on this endpoint (its queued event's revision names it). */
export type WebhookRedeliveryRequested = DomainEvent<
  'WebhookRedeliveryRequested',
  {
    webhook_id: string;
    account_id: number;
    event_id: string;
    event_type: string;
    queued_revision: number;
    attempt: number;
    at: string;
  }
>;

export type DeliveryStatus = 'succeeded' | 'failed';

/**
 * One attempt's outcome, appended by the sender after each item of a batch. `revision` is
 * the outbox item sent (a queued event or a redelivery request); `queued_revision` where its
 * body is; `last` says the batch is over (its last item, or the failure that stopped it).
 */
export type WebhookDeliveryAttempted = DomainEvent<
  'WebhookDeliveryAttempted',
  {
    webhook_id: string;
    account_id: number;
    command_id: string;
    revision: number;
    queued_revision: number;
    delivery_id: string;
    event_id: string;
    event_type: string;
    attempt: number;
    last: boolean;
    status: DeliveryStatus;
    response_status: number | null;
    duration_ms: number;
    attempted_at: string;
    /** When the next attempt is due after a failure (backoff with jitter); null after a success. */
    next_attempt_at: string | null;
    error: string | null;
  }
>;

export type OutboxEvent = WebhookEventQueued | WebhookRedeliveryRequested | WebhookDeliveryAttempted;
export const OUTBOX_EVENT_TYPES = [
  'WebhookEventQueued',
  'WebhookRedeliveryRequested',
  'WebhookDeliveryAttempted',
] as const satisfies readonly OutboxEvent['type'][];

export const outboxStream = (webhookId: string) => `webhook-outbox-${webhookId}`;
/**
 * The outcomes, apart from the queue: the sender finds its own last one at the stream's end (a command sent again after
 * a crash skips what it already sent).
 */
export const attemptsStream = (webhookId: string) => `webhook-attempts-${webhookId}`;
export const OUTBOX_STREAM_PREFIX = 'webhook-outbox-';
