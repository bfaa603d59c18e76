import { Inject, Injectable } from '@nestjs/common';
import { CommandContext } from '../../consumers/process-manager-runtime';
import { nameBasedEventId } from '../../eventstore/event-id';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { AppError } from '../../shared/errors';
import { retryDelayMs } from '../domain/backoff';
import { DeliveryCommand } from '../domain/delivery.process-manager';
import { deliveryId } from '../domain/delivery-id';
import { outboxStream, WEBHOOK_SECRET_PURPOSE, WebhookDeliveryAttempted, WebhookEventQueued, webhooksStream } from '../domain/webhook.events';
import { webhooksDecider } from '../domain/webhooks.decider';
import { SendResult, sendWebhook } from './sender';
import { signedHeaders } from './signature';
import { parseEndpointUrl, resolveTarget } from './target';

type Deliver = Extract<DeliveryCommand, { type: 'DeliverWebhook' }>;

/**
 * One delivery attempt, as the delivery process manager commands it: the queued body,
 * signed (Standard Webhooks) with the endpoint's secret, POSTed to the address the SSRF
 * check approves now (the name is resolved again for every attempt and the connection
 * pinned to the answer), and the outcome appended to the outbox stream with an id derived
 * from the command, so a command sent again after a crash records one outcome (the
 * receiver may see the body twice: at least once, same `webhook-id`).
 */
@Injectable()
export class WebhookDeliverer {
  constructor(
    private readonly streams: EventStreams,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async deliver(c: Deliver, context: CommandContext): Promise<void> {
    const { state } = await this.streams.loadState(webhooksStream(c.accountId), webhooksDecider);
    const endpoint = state.endpoints.get(c.webhookId);
    // Disabled or deleted meanwhile: the process has heard of it (or will) and drops the delivery.
    if (!endpoint || !endpoint.enabled) return;
    const [queued] = await this.store.readStream(outboxStream(c.webhookId), { fromRevision: c.revision, maxCount: 1 });
    if (!queued || queued.type !== 'WebhookEventQueued') throw new Error(`outbox ${c.webhookId} has no queued event at ${c.revision}`);
    const payload = (queued.data as WebhookEventQueued['data']).payload;
    const body = JSON.stringify(payload);
    const started = this.clock.now();
    const secret = this.box.openString(endpoint.secret_sealed, WEBHOOK_SECRET_PURPOSE);
    const result = await this.send(endpoint.url, signedHeaders(secret, payload.id, Math.floor(started.getTime() / 1000), body), body);
    const maxBackoff = this.config.webhookMaxRetryMs;
    const attempted: WebhookDeliveryAttempted = {
      type: 'WebhookDeliveryAttempted',
      data: {
        webhook_id: c.webhookId,
        account_id: c.accountId,
        delivery_id: deliveryId(context.commandId),
        event_id: c.eventId,
        event_type: c.eventType,
        attempt: c.attempt,
        ...(c.request ? { request: c.request } : {}),
        status: result.ok ? 'succeeded' : 'failed',
        response_status: result.status,
        duration_ms: result.durationMs,
        attempted_at: started.toISOString(),
        next_attempt_at: result.ok ? null : new Date(started.getTime() + result.durationMs + retryDelayMs(c.attempt, Math.random(), maxBackoff)).toISOString(),
        error: result.error,
      },
    };
    await this.store.appendToStream(
      outboxStream(c.webhookId),
      [
        {
          id: nameBasedEventId(`${context.commandId}:outcome`),
          ...attempted,
          metadata: { version: 1, actor: 'system', account_id: c.accountId, causation_id: context.causationId },
        },
      ],
      'any',
    );
  }

  private async send(rawUrl: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const allow = this.config.allowPrivateTargets;
    try {
      const target = await resolveTarget(parseEndpointUrl(rawUrl, allow), allow);
      return await sendWebhook(target, headers, body);
    } catch (e) {
      // The URL no longer passes the SSRF check (its name now resolves to a private address, or not at all): a failed attempt.
      return { ok: false, status: null, durationMs: 0, error: e instanceof AppError ? e.message : String(e) };
    }
  }
}
