import { project } from '../libs/projection-engine/projection-harness';
import { deliveryId } from '../libs/webhooks/domain/delivery-id';
import { WebhookDeleted, WebhookDeliveryAttempted, WebhookDisabled } from '../libs/webhooks/domain/webhook.events';
import { WEBHOOK_DELIVERIES, webhookDeliveriesProjection } from './webhook-deliveries.projection';

const attempted = (attempt: number, ok: boolean, at: string, next: string | null): WebhookDeliveryAttempted => ({
  type: 'WebhookDeliveryAttempted',
  data: {
    webhook_id: 'w1',
    account_id: 7,
    command_id: `c${attempt}`,
    revision: 3,
    queued_revision: 3,
    delivery_id: deliveryId('w1', 3, attempt),
    event_id: 'e1',
    event_type: 'zone.changed',
    attempt,
    last: true,
    status: ok ? 'succeeded' : 'failed',
    response_status: ok ? 204 : 500,
    duration_ms: 12,
    attempted_at: at,
    next_attempt_at: next,
    error: ok ? null : 'HTTP 500',
  },
});

const row = (attempt: number, status: string, fields: object) => ({
  _id: deliveryId('w1', 3, attempt),
  webhook_id: 'w1',
  account_id: 7,
  event_id: 'e1',
  event_type: 'zone.changed',
  queued_revision: 3,
  attempt,
  status,
  ...fields,
});

describe('webhook_deliveries projection (the delivery log)', () => {
  it('a failure is a failed row and a pending row for the scheduled retry; the retry’s outcome fills that row; replaying changes nothing', async () => {
    const h = await project<WebhookDeliveryAttempted | WebhookDisabled | WebhookDeleted>(webhookDeliveriesProjection, [
      attempted(1, false, '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:02.000Z'),
      attempted(2, true, '2026-03-01T00:00:02.100Z', null),
    ]);
    const expected = [
      row(1, 'failed', {
        response_status: 500,
        duration_ms: 12,
        attempted_at: '2026-03-01T00:00:00.000Z',
        next_attempt_at: '2026-03-01T00:00:02.000Z',
        error: 'HTTP 500',
        seq: 2,
      }),
      row(2, 'succeeded', {
        response_status: 204,
        duration_ms: 12,
        attempted_at: '2026-03-01T00:00:02.100Z',
        next_attempt_at: null,
        error: null,
        seq: 4,
      }),
    ].sort((a, b) => a._id.localeCompare(b._id));
    const docs = async () => (await h.documents(WEBHOOK_DELIVERIES)).sort((a, b) => a._id.localeCompare(b._id));
    expect(await docs()).toEqual(expected);
    await h.replayed();
    expect(await docs()).toEqual(expected);
    await h.close();
  });

  it('switching the endpoint off removes the retry it will no longer make', async () => {
    const h = await project<WebhookDeliveryAttempted | WebhookDisabled | WebhookDeleted>(webhookDeliveriesProjection, [
      attempted(1, false, '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:02.000Z'),
      {
        type: 'WebhookDisabled',
        data: {
          webhook_id: 'w1',
          account_id: 7,
          reason: 'user',
          disabled_reason: null,
          at: '2026-03-01T00:00:01.000Z',
        },
      },
    ]);
    expect((await h.documents(WEBHOOK_DELIVERIES)).map((d) => d.status)).toEqual(['failed']);
    await h.close();
  });
});
