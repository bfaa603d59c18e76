import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CheckpointedConsumer } from '../../consumers/checkpointed-consumer';
import { COORDINATION, Coordination } from '../../consumers/coordination';
import { LeasedWork, newHolderId } from '../../consumers/lease';
import { nameBasedEventId } from '../../eventstore/event-id';
import {
  comparePositions,
  EVENT_STORE,
  EventStore,
  NewEvent,
  Position,
  positionFromString,
  positionToString,
  RecordedEvent,
} from '../../eventstore/event-store.port';
import { upcast } from '../../eventstore/upcasters';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { LOGGER, Logger } from '../../shared/logger';
import { subscribes } from '../domain/event-types';
import { accountInData, SOURCE_EVENT_TYPES, SOURCE_TYPES } from '../domain/source-events';
import {
  outboxStream,
  WEBHOOK_ENDPOINT_EVENT_TYPES,
  WebhookEvent,
  WebhookEventQueued,
  webhooksStream,
} from '../domain/webhook.events';
import { webhooksDecider, WebhooksState } from '../domain/webhooks.decider';
import { PayloadBuilder } from './payloads';

const NAME = 'webhook-outbox';
/** Accounts whose endpoints are kept in memory; beyond this many, the least recent is read again from its stream when next needed. */
const ACCOUNT_CACHE_SIZE = 10_000;
/** The checkpoint is saved at most this often: a crash reads again at most this much of the log, and writes nothing twice (ids are derived). */
const CHECKPOINT_EVERY_MS = 500;

/**
 * Fills the outbox: follows `$all` (one lease, `webhook-outbox`, checkpoint in
 * coordination) and, for each event a webhook type comes from, appends one
 * `WebhookEventQueued` (the whole payload) to the outbox stream of every endpoint that
 * was enabled and subscribed to it at that point of the log. The endpoints are the
 * account's `webhooks-<account>` stream folded up to the event's position, so the answer
 * is the same however often the event is seen; each queued event's id is derived from the
 * endpoint and the source event, so a repeat after a crash writes nothing. The delivery
 * process manager (delivery.process-manager.ts) takes it from there.
 */
@Injectable()
export class OutboxFeeder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly lease: LeasedWork;
  private readonly payloads: PayloadBuilder;
  private consumer: CheckpointedConsumer | null = null;
  /** Each account's endpoints as of the last event applied (null: not read yet). */
  private readonly accounts = new Map<number, WebhooksState>();
  private saveTimer: NodeJS.Timeout | null = null;
  /** What this batch of the log queues, per outbox stream in order: appended together when the batch is done. */
  private pending = new Map<string, NewEvent[]>();
  /** The position every queued event before which is stored: the only one the checkpoint may take. */
  private flushed: Position | null = null;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(COORDINATION) private readonly coordination: Coordination,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.payloads = new PayloadBuilder(store);
    this.lease = new LeasedWork(coordination, `consumer:${NAME}`, newHolderId(), {
      ttlMs: config.leaseTtlMs,
      onAcquired: () => this.run(),
      onReleased: () => this.halt(),
      log: (msg, extra) => this.logger.info(msg, { ...(extra as Record<string, unknown>), consumer: NAME }),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.roles.includes('worker')) await this.lease.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.lease.stop();
  }

  /** Whether this process has caught up with `position` (tests and the bench wait on it through the delivery log instead). */
  get position(): Position | null {
    return this.consumer?.position ?? null;
  }

  private async run(): Promise<void> {
    const from = (await this.coordination.positions([NAME])).get(NAME) ?? null;
    this.accounts.clear();
    this.pending = new Map();
    this.flushed = positionFromString(from);
    this.consumer = new CheckpointedConsumer({
      name: NAME,
      store: this.store,
      from: positionFromString(from),
      handles: new Set([...SOURCE_EVENT_TYPES, ...WEBHOOK_ENDPOINT_EVENT_TYPES]),
      apply: (event) => this.apply(event),
      batchDone: () => this.flush(),
      log: (msg, extra) => this.logger.info(msg, { ...(extra as Record<string, unknown>), consumer: NAME }),
    });
    this.consumer.start();
  }

  private async halt(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = null;
    if (!consumer) return;
    await consumer.stop();
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    // Events applied since the last batch's end are queued in memory only: the checkpoint stays before them.
    await this.coordination.savePosition(NAME, positionToString(this.flushed));
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      const position = this.flushed;
      if (position) void this.coordination.savePosition(NAME, positionToString(position)).catch(() => undefined);
    }, CHECKPOINT_EVERY_MS);
    this.saveTimer.unref();
  }

  /**
   * A source event of an account known to have no endpoint is done with at once, without a
   * promise: the consumer then takes the next event in the same turn. Under DDNS this is
   * nearly every event (most accounts have no webhook).
   */
  private apply(event: RecordedEvent): Promise<void> | void {
    if (!(WEBHOOK_ENDPOINT_EVENT_TYPES as readonly string[]).includes(event.type)) {
      const accountId = accountInData(event.data);
      const known = accountId === null ? undefined : this.accounts.get(accountId);
      if (known && known.endpoints.size === 0) {
        // As endpointsAt: the account stays among the most recently used.
        this.accounts.delete(accountId!);
        this.accounts.set(accountId!, known);
        return;
      }
    }
    return this.applySlowly(event);
  }

  private async applySlowly(event: RecordedEvent): Promise<void> {
    if ((WEBHOOK_ENDPOINT_EVENT_TYPES as readonly string[]).includes(event.type)) {
      const accountId = (event.data as WebhookEvent['data']).account_id;
      const known = this.accounts.get(accountId);
      // Known: carried on in log order. Unknown: read up to this event when first needed.
      if (known)
        this.accounts.set(
          accountId,
          webhooksDecider.evolve(known, { type: event.type, data: event.data } as WebhookEvent),
        );
      return;
    }
    const candidates = SOURCE_TYPES[event.type];
    const accountId = await this.payloads.accountOf(event);
    if (accountId === null) return;
    const endpoints = await this.endpointsAt(accountId, event.position);
    const live = [...endpoints.endpoints.values()].filter(
      (e) => e.enabled && candidates.some((t) => subscribes(e.event_types, t)),
    );
    if (live.length === 0) return;
    const built = await this.payloads.build(event);
    if (!built) return;
    const targets = live.filter((e) => subscribes(e.event_types, built.type));
    const payload = {
      id: event.id,
      type: built.type,
      occurred_at: event.created.toISOString(),
      account_id: accountId,
      data: built.data,
    };
    const metadata = {
      version: 1,
      actor: 'system',
      account_id: accountId,
      causation_id: event.id,
      ...(event.metadata.correlation_id ? { correlation_id: event.metadata.correlation_id } : {}),
    };
    for (const e of targets) {
      const queued: WebhookEventQueued = {
        type: 'WebhookEventQueued',
        data: { webhook_id: e.id, account_id: accountId, payload },
      };
      const stream = outboxStream(e.id);
      const list = this.pending.get(stream) ?? [];
      list.push({ id: nameBasedEventId(`webhook-queued:${e.id}:${event.id}`), ...queued, metadata });
      this.pending.set(stream, list);
      // Only the last of a stream's events in this batch wakes the delivery process (set false on the one before).
      if (list.length > 1) (list[list.length - 2].data as WebhookEventQueued['data']).wake = false;
    }
  }

  /**
   * Appends what the batch queued, one append per outbox stream (in log order within it),
   * the streams side by side, before the consumer goes on: a busy log costs a commit per
   * batch, not per event and endpoint. The checkpoint is saved only after.
   */
  private async flush(): Promise<void> {
    const pending = this.pending;
    const covered = this.consumer?.position ?? null;
    this.pending = new Map();
    await Promise.all([...pending].map(([stream, events]) => this.appendOnce(stream, events)));
    this.flushed = covered;
    this.scheduleSave();
  }

  /**
   * Appends `events` with their derived ids. A repeat after a crash may find some already
   * stored (the log read again from the checkpoint, in other batches than before): the
   * store refuses such a mixed append, so they are then appended one by one, each a no-op
   * when stored. Tried until it succeeds: the consumer's position is already past them.
   */
  private async appendOnce(stream: string, events: NewEvent[]): Promise<void> {
    for (let backoff = 100; ; backoff = Math.min(backoff * 2, 10_000)) {
      try {
        await this.store.appendToStream(stream, events, 'any');
        return;
      } catch {
        try {
          for (const e of events) await this.store.appendToStream(stream, [e], 'any');
          return;
        } catch (e) {
          this.logger.warn('webhook outbox: append failed; trying again', {
            stream,
            error: String(e),
            backoff_ms: backoff,
          });
          await new Promise((r) => setTimeout(r, backoff));
        }
      }
    }
  }

  /** The account's endpoints as its stream stood at `position`. */
  private async endpointsAt(accountId: number, position: Position): Promise<WebhooksState> {
    let state = this.accounts.get(accountId);
    if (!state) {
      state = webhooksDecider.initialState();
      for (const raw of await this.store.readStream(webhooksStream(accountId))) {
        if (comparePositions(raw.position, position) > 0) break;
        const r = upcast(raw);
        state = webhooksDecider.evolve(state, { type: r.type, data: r.data } as WebhookEvent);
      }
      if (this.accounts.size >= ACCOUNT_CACHE_SIZE) this.accounts.delete(this.accounts.keys().next().value!);
    } else this.accounts.delete(accountId);
    this.accounts.set(accountId, state);
    return state;
  }
}
