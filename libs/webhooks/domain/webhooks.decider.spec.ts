import { specFor } from '../../shared/testing/decider-spec';
import { checkEventTypes, DISABLED_FOR_FAILURE, webhooksDecider, WebhooksCommand } from './webhooks.decider';
import { WebhookCreated, WebhookEvent } from './webhook.events';

const { given } = specFor(webhooksDecider);
const AT = '2026-03-01T10:00:00.000Z';
const create = (id: string, limit: number | null = 5): WebhooksCommand => ({
  type: 'CreateWebhook',
  webhookId: id,
  accountId: 7,
  limit,
  url: 'https://hooks.example.com/in',
  eventTypes: ['zone.changed'],
  description: null,
  secretSealed: 'sealed',
  at: AT,
});
const created = (id: string): WebhookCreated => ({
  type: 'WebhookCreated',
  data: {
    webhook_id: id,
    account_id: 7,
    url: 'https://hooks.example.com/in',
    event_types: ['zone.changed'],
    description: null,
    secret_sealed: 'sealed',
    created_at: AT,
  },
});

describe('webhooks decider (an account’s endpoints)', () => {
  it('registers an endpoint with its sealed secret', () => {
    given([])
      .when(create('w1'))
      .then([created('w1')]);
  });

  it('refuses plans without webhooks (403 plan_required) and the endpoint past the plan’s limit (403 limit_reached)', () => {
    given([]).when(create('w1', null)).thenFails(403, 'plan_required');
    given([created('w1'), created('w2')])
      .when(create('w3', 2))
      .thenFails(403, 'Webhook endpoint limit reached for your plan (2)');
  });

  it('a deleted endpoint frees its place under the limit', () => {
    const deleted: WebhookEvent = { type: 'WebhookDeleted', data: { webhook_id: 'w1', account_id: 7, at: AT } };
    given([created('w1'), created('w2'), deleted])
      .when(create('w3', 2))
      .then([created('w3')]);
  });

  it('an update records only what changed; enabling and disabling are their own events', () => {
    given([created('w1')])
      .when({
        type: 'UpdateWebhook',
        webhookId: 'w1',
        accountId: 7,
        url: 'https://hooks.example.com/in',
        description: 'ops',
        enabled: false,
        at: AT,
      })
      .then([
        { type: 'WebhookUpdated', data: { webhook_id: 'w1', account_id: 7, description: 'ops', at: AT } },
        {
          type: 'WebhookDisabled',
          data: { webhook_id: 'w1', account_id: 7, reason: 'user', disabled_reason: null, at: AT },
        },
      ]);
    given([created('w1')])
      .when({ type: 'UpdateWebhook', webhookId: 'w1', accountId: 7, enabled: true, at: AT })
      .then([]);
  });

  it('the delivery process disables a failing endpoint once, with the reason', () => {
    const disable: WebhooksCommand = { type: 'DisableFailingWebhook', webhookId: 'w1', accountId: 7, at: AT };
    const disabled: WebhookEvent = {
      type: 'WebhookDisabled',
      data: { webhook_id: 'w1', account_id: 7, reason: 'failing', disabled_reason: DISABLED_FOR_FAILURE, at: AT },
    };
    given([created('w1')])
      .when(disable)
      .then([disabled]);
    given([created('w1'), disabled])
      .when(disable)
      .then([]);
    given([]).when(disable).then([]);
  });

  it('unknown ids are 404', () => {
    given([])
      .when({ type: 'DeleteWebhook', webhookId: 'nope', accountId: 7, at: AT })
      .thenFails(404, 'Webhook not found');
    given([])
      .when({ type: 'UpdateWebhook', webhookId: 'nope', accountId: 7, enabled: true, at: AT })
      .thenFails(404, 'Webhook not found');
  });

  it('event types: known ones or "*" alone; an unknown type is a 400 naming it', () => {
    expect(checkEventTypes(['zone.changed', 'uptime.down', 'zone.changed'])).toEqual(['zone.changed', 'uptime.down']);
    expect(checkEventTypes(['*'])).toEqual(['*']);
    expect(() => checkEventTypes(['zone.changd'])).toThrow(/unknown event type "zone.changd"/);
    expect(() => checkEventTypes([])).toThrow(/at least one/);
    expect(() => checkEventTypes(['*', 'zone.changed'])).toThrow(/alone/);
  });
});
