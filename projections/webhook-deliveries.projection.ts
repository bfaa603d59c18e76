import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { deliveryId } from '../libs/webhooks/domain/delivery-id';
import { WebhookDeleted, WebhookDeliveryAttempted, WebhookDisabled } from '../libs/webhooks/domain/webhook.events';
import { guardedUpdate } from './guard';

/** One delivery attempt (contract §19 "delivery"): its outcome, or `pending` for the retry a failure scheduled. */
export interface WebhookDeliveryDoc {
  _id: string;
  webhook_id: string;
  account_id: number;
  event_id: string;
  event_type: string;
  attempt: number;
  /** Where the event's body is in the endpoint's outbox stream: what a redelivery sends again. */
  queued_revision: number;
  status: 'pending' | 'succeeded' | 'failed';
  response_status: number | null;
  duration_ms: number | null;
  attempted_at: string | null;
  next_attempt_at: string | null;
  error: string | null;
  /** The list's order (newest first) and its cursor: twice the event's position, plus one for the pending row a failure adds above itself. */
  seq: number;
}

export const WEBHOOK_DELIVERIES = defineReadModel<WebhookDeliveryDoc>('webhook_deliveries', 'webhook_deliveries', [
  { keys: { webhook_id: 1, seq: -1 } },
  { keys: { webhook_id: 1, event_id: 1 } },
]);

/** webhook_deliveries: the delivery log, one row per attempt. */
export const webhookDeliveriesProjection = defineProjection<
  WebhookDeliveryAttempted | WebhookDisabled | WebhookDeleted
>({
  name: 'webhook_deliveries',
  version: 1,
  readModels: [WEBHOOK_DELIVERIES],
  handles: ['WebhookDeliveryAttempted', 'WebhookDisabled', 'WebhookDeleted'],
  async apply(event, ctx) {
    const rows = ctx.collection(WEBHOOK_DELIVERIES);
    if (event.type !== 'WebhookDeliveryAttempted') {
      // Scheduled retries of an endpoint switched off will not happen.
      await rows.deleteMany({ webhook_id: event.data.webhook_id, status: 'pending' });
      return;
    }
    const d = event.data;
    const row = {
      webhook_id: d.webhook_id,
      account_id: d.account_id,
      event_id: d.event_id,
      event_type: d.event_type,
      queued_revision: d.queued_revision,
    };
    await guardedUpdate(rows, d.delivery_id, ctx.position, {
      $set: {
        ...row,
        attempt: d.attempt,
        status: d.status,
        response_status: d.response_status,
        duration_ms: d.duration_ms,
        attempted_at: d.attempted_at,
        next_attempt_at: d.next_attempt_at,
        error: d.error,
        seq: ctx.position * 2,
      },
    });
    if (d.status === 'failed' && d.next_attempt_at) {
      await guardedUpdate(rows, deliveryId(d.webhook_id, d.revision, d.attempt + 1), ctx.position, {
        $set: {
          ...row,
          attempt: d.attempt + 1,
          status: 'pending',
          response_status: null,
          duration_ms: null,
          attempted_at: null,
          next_attempt_at: d.next_attempt_at,
          error: null,
          seq: ctx.position * 2 + 1,
        },
      });
    }
  },
});
