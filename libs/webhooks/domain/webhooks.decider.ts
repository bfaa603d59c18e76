import { Decider, unreachable } from '../../shared/decider';
import { conflict, forbidden, notFound, validationFailed } from '../../shared/errors';
import { ALL_TYPES, isWebhookEventType } from './event-types';
import { WebhookEvent } from './webhook.events';

/** One endpoint as the account's stream left it. */
export interface Endpoint {
  id: string;
  url: string;
  event_types: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  secret_sealed: string;
  created_at: string;
}

export interface WebhooksState {
  endpoints: ReadonlyMap<string, Endpoint>;
}

export const PLAN_REQUIRED_MESSAGE = 'Webhooks require Pro or Elite';
export const WEBHOOK_NOT_FOUND = 'Webhook not found';
export const DISABLED_FOR_FAILURE = 'Deliveries failed for 5 days';

export type WebhooksCommand =
  | {
      type: 'CreateWebhook';
      webhookId: string;
      accountId: number;
      /** The plan's endpoint limit (libs/accounts/domain/plan-limits.ts); null: the plan has no webhooks. */
      limit: number | null;
      url: string;
      eventTypes: string[];
      description: string | null;
      secretSealed: string;
      at: string;
    }
  | {
      type: 'UpdateWebhook';
      webhookId: string;
      accountId: number;
      url?: string;
      eventTypes?: string[];
      description?: string | null;
      enabled?: boolean;
      at: string;
    }
  | { type: 'DeleteWebhook'; webhookId: string; accountId: number; at: string }
  /** The delivery process giving up: a no-op when the endpoint is gone or already disabled. */
  | { type: 'DisableFailingWebhook'; webhookId: string; accountId: number; at: string };

/**
 * `event_types` as the contract takes it: a non-empty list of known types, or `["*"]`.
 * Unknown types are 400 (contract §19), so a typo never subscribes to nothing in silence.
 */
export function checkEventTypes(types: readonly string[]): string[] {
  if (types.length === 0) throw validationFailed('event_types: must name at least one event type, or be ["*"]');
  if (types.includes(ALL_TYPES)) {
    if (types.length > 1) throw validationFailed('event_types: "*" stands alone');
    return [ALL_TYPES];
  }
  const unknown = types.filter((t) => !isWebhookEventType(t));
  if (unknown.length)
    throw validationFailed(`event_types: unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')}`);
  return [...new Set(types)];
}

const withEndpoint = (s: WebhooksState, id: string, change: (e: Endpoint) => Endpoint | null): WebhooksState => {
  const current = s.endpoints.get(id);
  if (!current) return s;
  const next = new Map(s.endpoints);
  const changed = change(current);
  if (changed) next.set(id, changed);
  else next.delete(id);
  return { endpoints: next };
};

export const webhooksDecider: Decider<WebhooksState, WebhooksCommand, WebhookEvent> = {
  initialState: () => ({ endpoints: new Map() }),

  evolve(s, e) {
    switch (e.type) {
      case 'WebhookCreated': {
        const d = e.data;
        const next = new Map(s.endpoints);
        next.set(d.webhook_id, {
          id: d.webhook_id,
          url: d.url,
          event_types: d.event_types,
          description: d.description,
          enabled: true,
          disabled_reason: null,
          secret_sealed: d.secret_sealed,
          created_at: d.created_at,
        });
        return { endpoints: next };
      }
      case 'WebhookUpdated': {
        const d = e.data;
        return withEndpoint(s, d.webhook_id, (x) => ({
          ...x,
          ...(d.url !== undefined ? { url: d.url } : {}),
          ...(d.event_types !== undefined ? { event_types: d.event_types } : {}),
          ...(d.description !== undefined ? { description: d.description } : {}),
        }));
      }
      case 'WebhookEnabled':
        return withEndpoint(s, e.data.webhook_id, (x) => ({ ...x, enabled: true, disabled_reason: null }));
      case 'WebhookDisabled':
        return withEndpoint(s, e.data.webhook_id, (x) => ({
          ...x,
          enabled: false,
          disabled_reason: e.data.disabled_reason,
        }));
      case 'WebhookDeleted':
        return withEndpoint(s, e.data.webhook_id, () => null);
      default:
        return unreachable(e);
    }
  },

  decide(c, s) {
    switch (c.type) {
      case 'CreateWebhook': {
        if (c.limit === null) throw forbidden('plan_required', PLAN_REQUIRED_MESSAGE);
        if (s.endpoints.has(c.webhookId)) return [];
        if (s.endpoints.size >= c.limit)
          throw forbidden('limit_reached', `Webhook endpoint limit reached for your plan (${c.limit})`);
        return [
          {
            type: 'WebhookCreated',
            data: {
              webhook_id: c.webhookId,
              account_id: c.accountId,
              url: c.url,
              event_types: c.eventTypes,
              description: c.description,
              secret_sealed: c.secretSealed,
              created_at: c.at,
            },
          },
        ];
      }
      case 'UpdateWebhook': {
        const x = s.endpoints.get(c.webhookId);
        if (!x) throw notFound(WEBHOOK_NOT_FOUND);
        const events: WebhookEvent[] = [];
        const changed = {
          ...(c.url !== undefined && c.url !== x.url ? { url: c.url } : {}),
          ...(c.eventTypes !== undefined && c.eventTypes.join('\n') !== x.event_types.join('\n')
            ? { event_types: c.eventTypes }
            : {}),
          ...(c.description !== undefined && c.description !== x.description ? { description: c.description } : {}),
        };
        if (Object.keys(changed).length)
          events.push({
            type: 'WebhookUpdated',
            data: { webhook_id: c.webhookId, account_id: c.accountId, ...changed, at: c.at },
          });
        if (c.enabled === true && !x.enabled)
          events.push({ type: 'WebhookEnabled', data: { webhook_id: c.webhookId, account_id: c.accountId, at: c.at } });
        if (c.enabled === false && x.enabled)
          events.push({
            type: 'WebhookDisabled',
            data: { webhook_id: c.webhookId, account_id: c.accountId, reason: 'user', disabled_reason: null, at: c.at },
          });
        return events;
      }
      case 'DeleteWebhook':
        if (!s.endpoints.has(c.webhookId)) throw notFound(WEBHOOK_NOT_FOUND);
        return [{ type: 'WebhookDeleted', data: { webhook_id: c.webhookId, account_id: c.accountId, at: c.at } }];
      case 'DisableFailingWebhook': {
        const x = s.endpoints.get(c.webhookId);
        if (!x || !x.enabled) return [];
        return [
          {
            type: 'WebhookDisabled',
            data: {
              webhook_id: c.webhookId,
              account_id: c.accountId,
              reason: 'failing',
              disabled_reason: DISABLED_FOR_FAILURE,
              at: c.at,
            },
          },
        ];
      }
      default:
        return unreachable(c);
    }
  },
};

/** `POST …/test` needs an enabled endpoint (contract §19: 409 when disabled). */
export function requireEnabled(s: WebhooksState, webhookId: string): Endpoint {
  const x = s.endpoints.get(webhookId);
  if (!x) throw notFound(WEBHOOK_NOT_FOUND);
  if (!x.enabled) throw conflict('webhook_disabled', 'The webhook is disabled; enable it first');
  return x;
}
