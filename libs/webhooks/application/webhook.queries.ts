import { Injectable } from '@nestjs/common';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { PLAN_LIMITS } from '../../accounts/domain/plan-limits';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { forbidden, notFound, validationFailed } from '../../shared/errors';
import { WEBHOOK_DELIVERIES, WebhookDeliveryDoc } from '../../../projections/webhook-deliveries.projection';
import {
  Endpoint,
  PLAN_REQUIRED_MESSAGE,
  WEBHOOK_NOT_FOUND,
  webhooksDecider,
  WebhooksState,
} from '../domain/webhooks.decider';
import { webhooksStream } from '../domain/webhook.events';

/** A webhook as the API shows it (contract §19); the secret only in the creation answer. */
export const webhookView = (e: Endpoint) => ({
  id: e.id,
  url: e.url,
  event_types: e.event_types,
  description: e.description,
  enabled: e.enabled,
  disabled_reason: e.disabled_reason,
  created_at: e.created_at,
});

export const deliveryView = (d: WebhookDeliveryDoc) => ({
  id: d._id,
  event_id: d.event_id,
  event_type: d.event_type,
  attempt: d.attempt,
  status: d.status,
  response_status: d.response_status,
  duration_ms: d.duration_ms,
  attempted_at: d.attempted_at,
  next_attempt_at: d.next_attempt_at,
});

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
const encodeCursor = (seq: number) => Buffer.from(`d:${seq}`).toString('base64url');
const decodeCursor = (cursor: string): number => {
  const m = /^d:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw validationFailed('cursor: not a cursor returned by this endpoint');
  return Number(m[1]);
};

/**
 * The webhooks API's reads and its plan gate. Endpoints are the account's `webhooks-<account>`
 * stream (read back folded: always what was just written); the delivery log is the
 * `webhook_deliveries` read model.
 */
@Injectable()
export class WebhookQueries {
  constructor(
    private readonly streams: EventStreams,
    private readonly directory: AccountDirectory,
    private readonly projections: ProjectionEngine,
  ) {}

  async planLimit(accountId: number): Promise<number | null> {
    const { state } = await this.directory.load(accountId);
    if (!state.exists) throw notFound('Account not found');
    return PLAN_LIMITS[state.plan].webhookEndpoints;
  }

  /** Every webhook route needs Pro or Elite (contract §19, §16); endpoints kept from a higher plan stay listed. */
  async gate(accountId: number): Promise<void> {
    if ((await this.planLimit(accountId)) === null) throw forbidden('plan_required', PLAN_REQUIRED_MESSAGE);
  }

  state(accountId: number): Promise<{ state: WebhooksState; revision: number }> {
    return this.streams.loadState(webhooksStream(accountId), webhooksDecider);
  }

  async endpoint(accountId: number, webhookId: string): Promise<Endpoint> {
    const found = (await this.state(accountId)).state.endpoints.get(webhookId);
    if (!found) throw notFound(WEBHOOK_NOT_FOUND);
    return found;
  }

  async list(accountId: number) {
    await this.gate(accountId);
    const { state } = await this.state(accountId);
    return {
      webhooks: [...state.endpoints.values()]
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
        .map(webhookView),
    };
  }

  async get(accountId: number, webhookId: string) {
    await this.gate(accountId);
    return webhookView(await this.endpoint(accountId, webhookId));
  }

  async deliveries(accountId: number, webhookId: string, q: { cursor?: string; limit: number; status?: string }) {
    await this.gate(accountId);
    await this.endpoint(accountId, webhookId);
    if (q.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(q.status))
      throw validationFailed(`status: one of ${DELIVERY_STATUSES.join(', ')}`);
    const filter: Record<string, unknown> = { webhook_id: webhookId, account_id: accountId };
    if (q.status) filter.status = q.status;
    if (q.cursor) filter.seq = { $lt: decodeCursor(q.cursor) };
    const docs = await this.projections
      .readModel(WEBHOOK_DELIVERIES)
      .find(filter, { sort: { seq: -1 }, limit: q.limit + 1 });
    const page = docs.slice(0, q.limit);
    return {
      data: page.map(deliveryView),
      next_cursor: docs.length > q.limit ? encodeCursor(page[page.length - 1].seq) : null,
    };
  }

  deliveryRows() {
    return this.projections.readModel(WEBHOOK_DELIVERIES);
  }
}
