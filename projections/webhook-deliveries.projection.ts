import { ProcessFact, processStream } from '../libs/consumers/process-manager';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { DeliveryCommand, webhookDeliveryProcess } from '../libs/webhooks/domain/delivery.process-manager';
import { deliveryId } from '../libs/webhooks/domain/delivery-id';
import { WebhookDeliveryAttempted } from '../libs/webhooks/domain/webhook.events';
import { guardedUpdate } from './guard';

/** One delivery attempt (contract §19 "delivery"): pending from the moment the process issues it, then its outcome. */
export interface WebhookDeliveryDoc {
  _id: string;
  webhook_id: string;
  account_id: number;
  event_id: string;
  event_type: string;
  attempt: number;
  /** The queued event's revision in the endpoint's outbox stream: what a redelivery sends again. */
  queued_revision: number;
  status: 'pending' | 'succeeded' | 'failed';
  response_status: number | null;
  duration_ms: number | null;
  attempted_at: string | null;
  next_attempt_at: string | null;
  error: string | null;
  /** Global position of the issue: the list's order (newest first) and its cursor. */
  seq: number;
}

export const WEBHOOK_DELIVERIES = defineReadModel<WebhookDeliveryDoc>('webhook_deliveries', 'webhook_deliveries', [
  { keys: { webhook_id: 1, seq: -1 } },
  { keys: { webhook_id: 1, event_id: 1 } },
]);

type IssuedFact = Extract<ProcessFact<unknown, DeliveryCommand>, { type: 'ProcessCommandIssued' }>;
const PM_PREFIX = processStream(webhookDeliveryProcess.name, '');

/** webhook_deliveries: the delivery log, one row per attempt. */
export const webhookDeliveriesProjection = defineProjection<IssuedFact | WebhookDeliveryAttempted>({
  name: 'webhook_deliveries',
  version: 1,
  readModels: [WEBHOOK_DELIVERIES],
  handles: ['ProcessCommandIssued', 'WebhookDeliveryAttempted'],
  async apply(event, ctx) {
    const rows = ctx.collection(WEBHOOK_DELIVERIES);
    if (event.type === 'ProcessCommandIssued') {
      const c = event.data.command;
      if (!event.streamId.startsWith(PM_PREFIX) || c.type !== 'DeliverWebhook') return;
      return guardedUpdate(rows, deliveryId(event.data.command_id), ctx.position, {
        $set: {
          webhook_id: c.webhookId,
          account_id: c.accountId,
          event_id: c.eventId,
          event_type: c.eventType,
          attempt: c.attempt,
          queued_revision: c.revision,
          status: 'pending',
          response_status: null,
          duration_ms: null,
          attempted_at: event.created.toISOString(),
          next_attempt_at: null,
          error: null,
          seq: ctx.position,
        },
      });
    }
    const d = event.data;
    return guardedUpdate(rows, d.delivery_id, ctx.position, {
      $set: {
        status: d.status,
        response_status: d.response_status,
        duration_ms: d.duration_ms,
        attempted_at: d.attempted_at,
        next_attempt_at: d.next_attempt_at,
        error: d.error,
      },
    });
  },
});
