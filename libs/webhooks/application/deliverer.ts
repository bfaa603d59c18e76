import { Inject, Injectable } from '@nestjs/common';
import { CommandContext } from '../../consumers/process-manager-runtime';
import { nameBasedEventId } from '../../eventstore/event-id';
import { EVENT_STORE, EventStore, NewEvent } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { AppError } from '../../shared/errors';
import { retryDelayMs } from '../domain/backoff';
import { DeliveryCommand } from '../domain/delivery.process-manager';
import { deliveryId } from '../domain/delivery-id';
import {
  attemptsStream,
  outboxStream,
  WEBHOOK_SECRET_PURPOSE,
  WebhookDeliveryAttempted,
  WebhookEventQueued,
  WebhookPayload,
  WebhookRedeliveryRequested,
  webhooksStream,
} from '../domain/webhook.events';
import { webhooksDecider } from '../domain/webhooks.decider';
import { SendResult, sendWebhook } from './sender';
import { signedHeaders } from './signature';
import { parseEndpointUrl, resolveTarget } from './target';

type Deliver = Extract<DeliveryCommand, { type: 'DeliverWebhook' }>;

/** Items one command sends at most: a backlog (a receiver back after an outage) goes in batches, one process step each. */
export const MAX_BATCH = 100;
const READ_PAGE = 256;
/**
 * Outcomes stored in one append: one durable commit per delivery would bound an endpoint to
 * the disk's commit rate; this many share one. A crash re-sends at most this many items (in
 * order, the same ids).
 */
export const OUTCOMES_PER_APPEND = 8;

interface OutboxItem {
  revision: number;
  queuedRevision: number;
  attempt: number;
  payload: WebhookPayload;
}

/**
 * Delivery attempts, as the delivery process manager commands them: the outbox items after
 * a revision, in order, each queued body signed (Standard Webhooks) with the endpoint's secret, POSTed to the address the SSRF
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

  private async enabled(c: Deliver): Promise<boolean> {
    const { state } = await this.streams.loadState(webhooksStream(c.accountId), webhooksDecider);
    return state.endpoints.get(c.webhookId)?.enabled === true;
  }

  async deliver(c: Deliver, context: CommandContext): Promise<void> {
    const { state } = await this.streams.loadState(webhooksStream(c.accountId), webhooksDecider);
    const endpoint = state.endpoints.get(c.webhookId);
    // Disabled or deleted meanwhile: the process has heard of it (or will) and drops the batch.
    if (!endpoint || !endpoint.enabled) return;
    const secret = this.box.openString(endpoint.secret_sealed, WEBHOOK_SECRET_PURPOSE);
    // Sent again after a crash: what this command already reported is not sent again (only what was under way at the crash is).
    const [lastOutcome] = await this.store.readStream(attemptsStream(c.webhookId), {
      direction: 'backwards',
      maxCount: 1,
    });
    const previous = lastOutcome?.data as WebhookDeliveryAttempted['data'] | undefined;
    let after = c.after;
    if (previous && previous.command_id === context.commandId) {
      if (previous.last) return;
      after = previous.revision;
    }
    const items = await this.batch(c.webhookId, after);
    const outcomes: NewEvent[] = [];
    for (const [i, item] of items.entries()) {
      // A retry numbers the batch's first item (not when resuming past it).
      const attempt = i === 0 && after === c.after && c.headAttempt > 0 ? c.headAttempt : item.attempt;
      const body = JSON.stringify(item.payload);
      const started = this.clock.now();
      const result = await this.send(
        endpoint.url,
        signedHeaders(secret, item.payload.id, Math.floor(started.getTime() / 1000), body),
        body,
      );
      const attempted: WebhookDeliveryAttempted = {
        type: 'WebhookDeliveryAttempted',
        data: {
          webhook_id: c.webhookId,
          account_id: c.accountId,
          command_id: context.commandId,
          revision: item.revision,
          queued_revision: item.queuedRevision,
          delivery_id: deliveryId(c.webhookId, item.revision, attempt),
          event_id: item.payload.id,
          event_type: item.payload.type,
          attempt,
          last: !result.ok || i === items.length - 1,
          status: result.ok ? 'succeeded' : 'failed',
          response_status: result.status,
          duration_ms: result.durationMs,
          attempted_at: started.toISOString(),
          next_attempt_at: result.ok
            ? null
            : new Date(
                started.getTime() +
                  result.durationMs +
                  retryDelayMs(attempt, Math.random(), this.config.webhookMaxRetryMs),
              ).toISOString(),
          error: result.error,
        },
      };
      outcomes.push({
        id: nameBasedEventId(`${context.commandId}:${item.revision}:outcome`),
        ...attempted,
        metadata: { version: 1, actor: 'system', account_id: c.accountId, causation_id: context.causationId },
      });
      // Stored together, OUTCOMES_PER_APPEND at a time (and at the batch's end or a failure): a durable
      // commit per delivery would bound an endpoint to the disk's commit rate.
      if (!result.ok || attempted.data.last || outcomes.length >= OUTCOMES_PER_APPEND) {
        await this.store.appendToStream(attemptsStream(c.webhookId), outcomes.splice(0), 'any');
        // Switched off or deleted during a long batch: the rest is not sent (the process has dropped it).
        if (!(await this.enabled(c))) return;
      }
      if (!result.ok) return;
    }
  }

  /** The next items to send after outbox revision `after`, in order: queued events and redelivery requests (with the body they name). */
  private async batch(webhookId: string, after: number): Promise<OutboxItem[]> {
    const items: OutboxItem[] = [];
    for (let from = after + 1; items.length < MAX_BATCH;) {
      const page = await this.store.readStream(outboxStream(webhookId), { fromRevision: from, maxCount: READ_PAGE });
      for (const e of page) {
        if (items.length >= MAX_BATCH) break;
        if (e.type === 'WebhookEventQueued') {
          items.push({
            revision: e.revision,
            queuedRevision: e.revision,
            attempt: 1,
            payload: (e.data as WebhookEventQueued['data']).payload,
          });
        } else if (e.type === 'WebhookRedeliveryRequested') {
          const r = e.data as WebhookRedeliveryRequested['data'];
          const [queued] = await this.store.readStream(outboxStream(webhookId), {
            fromRevision: r.queued_revision,
            maxCount: 1,
          });
          if (queued?.type === 'WebhookEventQueued')
            items.push({
              revision: e.revision,
              queuedRevision: r.queued_revision,
              attempt: r.attempt,
              payload: (queued.data as WebhookEventQueued['data']).payload,
            });
        }
      }
      if (page.length < READ_PAGE) break;
      from = page[page.length - 1].revision + 1;
    }
    return items;
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
