import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { PLAN_LIMITS } from '../../accounts/domain/plan-limits';
import { uuidv7 } from '../../eventstore/event-id';
import { eventMetadata } from '../../eventstore/event-metadata';
import { EVENT_STORE, EventMetadata, EventStore } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { forbidden, notFound, validationFailed } from '../../shared/errors';
import { WEBHOOK_DELIVERIES, WebhookDeliveryDoc } from '../../../projections/webhook-deliveries.projection';
import { checkEventTypes, Endpoint, PLAN_REQUIRED_MESSAGE, requireEnabled, WEBHOOK_NOT_FOUND, webhooksDecider, WebhooksState } from '../domain/webhooks.decider';
import { outboxStream, WEBHOOK_SECRET_PURPOSE, WebhookEventQueued, WebhookRedeliveryRequested, webhooksStream } from '../domain/webhook.events';
import { newSecret } from './signature';
import { parseEndpointUrl, resolveTarget } from './target';

export const MAX_DESCRIPTION_LENGTH = 500;

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

export interface WebhookInput {
  url?: string;
  event_types?: string[];
  description?: string | null;
  enabled?: boolean;
}

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
const encodeCursor = (seq: number) => Buffer.from(`d:${seq}`).toString('base64url');
const decodeCursor = (cursor: string): number => {
  const m = /^d:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw validationFailed('cursor: not a cursor returned by this endpoint');
  return Number(m[1]);
};

/**
 * The webhooks API's writes and reads. Endpoints are the account's `webhooks-<account>`
 * stream (read back folded: always what was just written); the delivery log is the
 * `webhook_deliveries` read model.
 */
@Injectable()
export class WebhookCommands {
  constructor(
    private readonly streams: EventStreams,
    private readonly directory: AccountDirectory,
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private async planLimit(accountId: number): Promise<number | null> {
    const { state } = await this.directory.load(accountId);
    if (!state.exists) throw notFound('Account not found');
    return PLAN_LIMITS[state.plan].webhookEndpoints;
  }

  /** Every webhook route needs Pro or Elite (contract §19, §16); endpoints kept from a higher plan stay listed. */
  private async gate(accountId: number): Promise<void> {
    if ((await this.planLimit(accountId)) === null) throw forbidden('plan_required', PLAN_REQUIRED_MESSAGE);
  }

  state(accountId: number): Promise<{ state: WebhooksState; revision: number }> {
    return this.streams.loadState(webhooksStream(accountId), webhooksDecider);
  }

  private async endpoint(accountId: number, webhookId: string): Promise<Endpoint> {
    const found = (await this.state(accountId)).state.endpoints.get(webhookId);
    if (!found) throw notFound(WEBHOOK_NOT_FOUND);
    return found;
  }

  private async checkedUrl(raw: string): Promise<string> {
    const url = parseEndpointUrl(raw, this.config.allowPrivateTargets);
    await resolveTarget(url, this.config.allowPrivateTargets);
    return url.toString();
  }

  private description(raw: string | null | undefined): string | null | undefined {
    if (raw === undefined || raw === null) return raw;
    if (raw.length > MAX_DESCRIPTION_LENGTH) throw validationFailed(`description: at most ${MAX_DESCRIPTION_LENGTH} characters`);
    return raw;
  }

  async list(accountId: number) {
    await this.gate(accountId);
    const { state } = await this.state(accountId);
    return { webhooks: [...state.endpoints.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)).map(webhookView) };
  }

  async get(accountId: number, webhookId: string) {
    await this.gate(accountId);
    return webhookView(await this.endpoint(accountId, webhookId));
  }

  async create(accountId: number, input: WebhookInput & { url: string; event_types: string[] }, metadata: EventMetadata) {
    const limit = await this.planLimit(accountId);
    if (limit === null) throw forbidden('plan_required', PLAN_REQUIRED_MESSAGE);
    const eventTypes = checkEventTypes(input.event_types);
    const description = this.description(input.description) ?? null;
    const url = await this.checkedUrl(input.url);
    const secret = newSecret();
    const webhookId = randomUUID();
    const { state } = await this.streams.handle(
      webhooksStream(accountId),
      webhooksDecider,
      {
        type: 'CreateWebhook',
        webhookId,
        accountId,
        limit,
        url,
        eventTypes,
        description,
        secretSealed: this.box.seal(secret, WEBHOOK_SECRET_PURPOSE),
        at: this.clock.now().toISOString(),
      },
      metadata,
    );
    return { ...webhookView(state.endpoints.get(webhookId)!), secret };
  }

  async update(accountId: number, webhookId: string, input: WebhookInput, metadata: EventMetadata) {
    await this.gate(accountId);
    await this.endpoint(accountId, webhookId);
    const eventTypes = input.event_types === undefined ? undefined : checkEventTypes(input.event_types);
    const description = this.description(input.description);
    const url = input.url === undefined ? undefined : await this.checkedUrl(input.url);
    const { state } = await this.streams.handle(
      webhooksStream(accountId),
      webhooksDecider,
      { type: 'UpdateWebhook', webhookId, accountId, url, eventTypes, description, enabled: input.enabled, at: this.clock.now().toISOString() },
      metadata,
    );
    return webhookView(state.endpoints.get(webhookId)!);
  }

  async remove(accountId: number, webhookId: string, metadata: EventMetadata): Promise<void> {
    await this.gate(accountId);
    await this.streams.handle(webhooksStream(accountId), webhooksDecider, { type: 'DeleteWebhook', webhookId, accountId, at: this.clock.now().toISOString() }, metadata);
  }

  /** The delivery process giving up on an endpoint (idempotent: the decider ignores an endpoint already disabled). */
  async disableFailing(accountId: number, webhookId: string): Promise<void> {
    await this.streams.handle(
      webhooksStream(accountId),
      webhooksDecider,
      { type: 'DisableFailingWebhook', webhookId, accountId, at: this.clock.now().toISOString() },
      eventMetadata({ actor: 'system:webhooks', account_id: accountId }),
    );
  }

  /** `webhook.test` to an enabled endpoint, queued behind what it already has (409 when disabled). */
  async test(accountId: number, webhookId: string, metadata: EventMetadata): Promise<{ event_id: string }> {
    await this.gate(accountId);
    requireEnabled((await this.state(accountId)).state, webhookId);
    const id = uuidv7();
    const at = this.clock.now().toISOString();
    const queued: WebhookEventQueued = {
      type: 'WebhookEventQueued',
      data: {
        webhook_id: webhookId,
        account_id: accountId,
        payload: { id, type: 'webhook.test', occurred_at: at, account_id: accountId, data: { webhook_id: webhookId, message: 'A test delivery from Account DNS' } },
      },
    };
    await this.store.appendToStream(outboxStream(webhookId), [{ id, ...queued, metadata: eventMetadata({ ...metadata, account_id: accountId }) }], 'any');
    return { event_id: id };
  }

  async deliveries(accountId: number, webhookId: string, q: { cursor?: string; limit: number; status?: string }) {
    await this.gate(accountId);
    await this.endpoint(accountId, webhookId);
    if (q.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(q.status)) throw validationFailed(`status: one of ${DELIVERY_STATUSES.join(', ')}`);
    const filter: Record<string, unknown> = { webhook_id: webhookId, account_id: accountId };
    if (q.status) filter.status = q.status;
    if (q.cursor) filter.seq = { $lt: decodeCursor(q.cursor) };
    const docs = await this.projections.readModel(WEBHOOK_DELIVERIES).find(filter, { sort: { seq: -1 }, limit: q.limit + 1 });
    const page = docs.slice(0, q.limit);
    return { data: page.map(deliveryView), next_cursor: docs.length > q.limit ? encodeCursor(page[page.length - 1].seq) : null };
  }

  /** Sends a delivered (or failed) event again, as the next attempt, behind what the endpoint has queued. */
  async redeliver(accountId: number, webhookId: string, deliveryId: string, metadata: EventMetadata): Promise<void> {
    await this.gate(accountId);
    const rows = this.projections.readModel(WEBHOOK_DELIVERIES);
    const row = await rows.findOne({ _id: deliveryId });
    if (!row || row.webhook_id !== webhookId || row.account_id !== accountId) throw notFound('Delivery not found');
    requireEnabled((await this.state(accountId)).state, webhookId);
    const [last] = await rows.find({ webhook_id: webhookId, event_id: row.event_id }, { sort: { attempt: -1 }, limit: 1 });
    const requested: WebhookRedeliveryRequested = {
      type: 'WebhookRedeliveryRequested',
      data: {
        webhook_id: webhookId,
        account_id: accountId,
        event_id: row.event_id,
        event_type: row.event_type,
        queued_revision: row.queued_revision,
        attempt: (last?.attempt ?? row.attempt) + 1,
        at: this.clock.now().toISOString(),
      },
    };
    await this.store.appendToStream(outboxStream(webhookId), [{ ...requested, metadata: eventMetadata({ ...metadata, account_id: accountId }) }], 'any');
  }
}
