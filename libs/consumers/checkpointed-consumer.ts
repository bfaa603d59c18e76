import { EventStore, Position, RecordedEvent, Subscription } from '../eventstore/event-store.port';
import { upcast } from '../eventstore/upcasters';

export type ConsumerState = 'catching_up' | 'live' | 'failed' | 'stopped';

export interface ConsumerOptions {
  /** For logs. */
  name: string;
  store: EventStore;
  /** Resume after this position (null: from the first event). */
  from: Position | null;
  /** Event types applied; others are skipped without being decoded. Null: every event. */
  handles: ReadonlySet<string> | null;
  /**
   * Applies one (upcast) event. Must be idempotent: after a crash the events since the
   * last saved checkpoint are delivered again.
   */
  apply(event: RecordedEvent): Promise<void> | void;
  /** Called after each applied event (read-your-writes waiters learn of it at once). */
  applied?(): void;
  /** Called after each batch, once `position` covers it; the place to save checkpoints. */
  batchDone?(events: number): Promise<void> | void;
  log?: (msg: string, extra?: object) => void;
}

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 10_000;

/** Adapters without `batches()`: the per-event iterator, one event per batch. */
async function* oneByOne(subscription: Subscription): AsyncGenerator<RecordedEvent[]> {
  for await (const event of subscription) yield [event];
}

/**
 * The one subscription loop every consumer runs on (read-model projections, the DNS
 * index, process managers): a catch-up subscription to `$all` from a stored position,
 * consumed in order batch by batch (the async machinery is paid once per batch), each
 * handled event applied in turn. A failure closes the subscription and resubscribes
 * from the last applied event after an exponential backoff, so one bad moment (a store
 * briefly unavailable) costs a retry, not the consumer.
 */
export class CheckpointedConsumer {
  /**
   * The last event applied or skipped: it may lag behind skipped events within the
   * current batch (never behind an applied one) and is exact whenever a batch is done.
   */
  position: Position | null;
  state: ConsumerState = 'catching_up';
  error?: string;
  private subscription: Subscription | null = null;
  private stopped = false;
  private done: Promise<void> = Promise.resolve();

  constructor(private readonly options: ConsumerOptions) {
    this.position = options.from;
  }

  start(): void {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    const { store, handles, apply, applied, batchDone } = this.options;
    let backoff = FIRST_BACKOFF_MS;
    /**
     * The last event applied synchronously whose position is not yet in `position`: nothing
     * can look at `position` between two synchronous applies, so an in-memory consumer (a DNS
     * thread's index) records it once per batch rather than building a position per event.
     */
    let unrecorded: RecordedEvent | null = null;
    const record = () => {
      if (unrecorded) this.position = unrecorded.position;
      unrecorded = null;
    };
    while (!this.stopped) {
      try {
        const subscription = (this.subscription = store.subscribeToAll(this.position));
        for await (const batch of subscription.batches ? subscription.batches() : oneByOne(subscription)) {
          let last: RecordedEvent | null = null;
          let count = 0;
          for (const raw of batch) {
            if (this.stopped) break;
            // Upcasting never changes an event's type, so unhandled events are skipped undecoded.
            if (!handles || handles.has(raw.type)) {
              // A synchronous apply (an in-memory consumer) costs no microtask turn per event.
              const pending = apply(upcast(raw));
              if (pending || applied) {
                if (pending) {
                  // Others may look while it runs: the events applied before it are recorded first.
                  record();
                  await pending;
                }
                unrecorded = null;
                this.position = raw.position;
                applied?.();
              } else unrecorded = raw;
            }
            last = raw;
            count += 1;
          }
          unrecorded = null;
          if (last !== null) {
            this.position = last.position;
            this.state = 'live';
            this.error = undefined;
            backoff = FIRST_BACKOFF_MS;
            // Awaited only when it returns a promise (a checkpoint write): awaiting nothing still costs a
            // promise and a microtask turn, per batch of every consumer (decision 0130).
            const done = batchDone?.(count);
            if (done) await done;
          }
          if (this.stopped) break;
        }
      } catch (e) {
        // A synchronous apply failed: the retry resumes after the last event applied before it.
        record();
        if (this.stopped) break;
        this.state = 'failed';
        this.error = e instanceof Error ? e.message : String(e);
        this.options.log?.('consumer failed; retrying', {
          consumer: this.options.name,
          error: this.error,
          backoff_ms: backoff,
        });
        await this.subscription?.close().catch(() => undefined);
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** Stops after the event being applied; resolves once the loop has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.state = 'stopped';
    await this.subscription?.close();
    await this.done;
  }
}
