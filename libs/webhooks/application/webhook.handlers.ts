import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { CommandRunner } from '../../eventstore/command-runner';
import { uuidv7 } from '../../eventstore/event-id';
import { eventMetadata } from '../../eventstore/event-metadata';
import { EVENT_STORE, EventMetadata, EventStore } from '../../eventstore/event-store.port';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { forbidden, notFound, validationFailed } from '../../shared/errors';
import {
  checkEventTypes,
  PLAN_REQUIRED_MESSAGE,
  requireEnabled,
  WebhooksCommand,
  webhooksDecider,
} from '../domain/webhooks.decider';
import {
  outboxStream,
  WEBHOOK_SECRET_PURPOSE,
  WebhookEventQueued,
  WebhookRedeliveryRequested,
  webhooksStream,
} from '../domain/webhook.events';
import { newSecret } from './signature';
import { parseEndpointUrl, resolveTarget } from './target';
import {
  CreateWebhook,
  DeleteWebhook,
  DisableFailingWebhook,
  RedeliverWebhook,
  TestWebhook,
  UpdateWebhook,
} from './webhook.commands';
import { WebhookQueries, webhookView } from './webhook.queries';

export const MAX_DESCRIPTION_LENGTH = 500;

function description(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  if (raw.length > MAX_DESCRIPTION_LENGTH)
    throw validationFailed(`description: at most ${MAX_DESCRIPTION_LENGTH} characters`);
  return raw;
}

/**
 * What every webhook handler shares: the account's endpoints stream, run through CommandRunner, and the URL check.
 * Its injections are declared here once; a handler without a constructor of its own inherits them.
 */
@Injectable()
abstract class WebhookHandler {
  constructor(
    protected readonly runner: CommandRunner,
    protected readonly queries: WebhookQueries,
    @Inject(CLOCK) protected readonly clock: Clock,
    @Inject(APP_CONFIG) protected readonly config: AppConfig,
  ) {}

  protected run(accountId: number, command: WebhooksCommand, metadata: EventMetadata) {
    return this.runner.run(webhooksStream(accountId), webhooksDecider, command, metadata);
  }

  protected now(): string {
    return this.clock.now().toISOString();
  }

  /** Only public addresses unless ALLOW_PRIVATE_TARGETS (contract §19, §16). */
  protected async checkedUrl(raw: string): Promise<string> {
    const url = parseEndpointUrl(raw, this.config.allowPrivateTargets);
    await resolveTarget(url, this.config.allowPrivateTargets);
    return url.toString();
  }
}

@CommandHandler(CreateWebhook)
export class CreateWebhookHandler extends WebhookHandler implements ICommandHandler<CreateWebhook> {
  @Inject(SECRET_BOX) private readonly box!: SecretBox;

  async execute({ accountId, input, metadata }: CreateWebhook) {
    const limit = await this.queries.planLimit(accountId);
    if (limit === null) throw forbidden('plan_required', PLAN_REQUIRED_MESSAGE);
    const eventTypes = checkEventTypes(input.event_types);
    const text = description(input.description) ?? null;
    const url = await this.checkedUrl(input.url);
    const secret = newSecret();
    const webhookId = randomUUID();
    const secretSealed = this.box.seal(secret, WEBHOOK_SECRET_PURPOSE);
    const { state } = await this.run(
      accountId,
      {
        type: 'CreateWebhook',
        webhookId,
        accountId,
        limit,
        url,
        eventTypes,
        description: text,
        secretSealed,
        at: this.now(),
      },
      metadata,
    );
    return { ...webhookView(state.endpoints.get(webhookId)!), secret };
  }
}

@CommandHandler(UpdateWebhook)
export class UpdateWebhookHandler extends WebhookHandler implements ICommandHandler<UpdateWebhook> {
  async execute({ accountId, webhookId, input, metadata }: UpdateWebhook) {
    await this.queries.gate(accountId);
    await this.queries.endpoint(accountId, webhookId);
    const eventTypes = input.event_types === undefined ? undefined : checkEventTypes(input.event_types);
    const text = description(input.description);
    const url = input.url === undefined ? undefined : await this.checkedUrl(input.url);
    const { state } = await this.run(
      accountId,
      {
        type: 'UpdateWebhook',
        webhookId,
        accountId,
        url,
        eventTypes,
        description: text,
        enabled: input.enabled,
        at: this.now(),
      },
      metadata,
    );
    return webhookView(state.endpoints.get(webhookId)!);
  }
}

@CommandHandler(DeleteWebhook)
export class DeleteWebhookHandler extends WebhookHandler implements ICommandHandler<DeleteWebhook> {
  async execute({ accountId, webhookId, metadata }: DeleteWebhook): Promise<void> {
    await this.queries.gate(accountId);
    await this.run(accountId, { type: 'DeleteWebhook', webhookId, accountId, at: this.now() }, metadata);
  }
}

/** Idempotent: the decider ignores an endpoint already disabled. */
@CommandHandler(DisableFailingWebhook)
export class DisableFailingWebhookHandler extends WebhookHandler implements ICommandHandler<DisableFailingWebhook> {
  async execute({ accountId, webhookId }: DisableFailingWebhook): Promise<void> {
    await this.run(
      accountId,
      { type: 'DisableFailingWebhook', webhookId, accountId, at: this.now() },
      eventMetadata({ actor: 'system:webhooks', account_id: accountId }),
    );
  }
}

/**
 * The outbox commands (a test send, a redelivery) append to the endpoint's outbox stream, the
 * delivery queue that is not an aggregate (decision 0087): nothing to decide but the checks here.
 */
@Injectable()
abstract class OutboxHandler extends WebhookHandler {
  @Inject(EVENT_STORE) private readonly store!: EventStore;

  protected async queue(
    webhookId: string,
    event: (WebhookEventQueued | WebhookRedeliveryRequested) & { id?: string },
    metadata: EventMetadata,
    accountId: number,
  ): Promise<void> {
    await this.store.appendToStream(
      outboxStream(webhookId),
      [{ ...event, metadata: eventMetadata({ ...metadata, account_id: accountId }) }],
      'any',
    );
  }
}

@CommandHandler(TestWebhook)
export class TestWebhookHandler extends OutboxHandler implements ICommandHandler<TestWebhook> {
  /** 409 when the endpoint is disabled. */
  async execute({ accountId, webhookId, metadata }: TestWebhook): Promise<{ event_id: string }> {
    await this.queries.gate(accountId);
    requireEnabled((await this.queries.state(accountId)).state, webhookId);
    const id = uuidv7();
    const at = this.now();
    const payload = {
      id,
      type: 'webhook.test',
      occurred_at: at,
      account_id: accountId,
      data: { webhook_id: webhookId, message: 'A test delivery from Account DNS' },
    };
    await this.queue(
      webhookId,
      { id, type: 'WebhookEventQueued', data: { webhook_id: webhookId, account_id: accountId, payload } },
      metadata,
      accountId,
    );
    return { event_id: id };
  }
}

@CommandHandler(RedeliverWebhook)
export class RedeliverWebhookHandler extends OutboxHandler implements ICommandHandler<RedeliverWebhook> {
  async execute({ accountId, webhookId, deliveryId, metadata }: RedeliverWebhook): Promise<void> {
    await this.queries.gate(accountId);
    const rows = this.queries.deliveryRows();
    const row = await rows.findOne({ _id: deliveryId });
    if (!row || row.webhook_id !== webhookId || row.account_id !== accountId) throw notFound('Delivery not found');
    requireEnabled((await this.queries.state(accountId)).state, webhookId);
    const [last] = await rows.find(
      { webhook_id: webhookId, event_id: row.event_id },
      { sort: { attempt: -1 }, limit: 1 },
    );
    const data = {
      webhook_id: webhookId,
      account_id: accountId,
      event_id: row.event_id,
      event_type: row.event_type,
      queued_revision: row.queued_revision,
      attempt: (last?.attempt ?? row.attempt) + 1,
      at: this.now(),
    };
    await this.queue(webhookId, { type: 'WebhookRedeliveryRequested', data }, metadata, accountId);
  }
}

export const WEBHOOK_COMMAND_HANDLERS = [
  CreateWebhookHandler,
  UpdateWebhookHandler,
  DeleteWebhookHandler,
  DisableFailingWebhookHandler,
  TestWebhookHandler,
  RedeliverWebhookHandler,
];
