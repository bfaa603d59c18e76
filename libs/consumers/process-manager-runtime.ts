import { nameBasedEventId } from '../eventstore/event-id';
import {
  EventStore,
  Position,
  positionFromString,
  positionToString,
  RecordedEvent,
  WrongExpectedVersionError,
} from '../eventstore/event-store.port';
import { EventStreams } from '../eventstore/event-streams';
import { runWithOrigin } from '../shared/command-origin';
import { Decider } from '../shared/decider';
import { CheckpointedConsumer } from './checkpointed-consumer';
import { Coordination } from './coordination';
import { LeasedWork, newHolderId } from './lease';
import {
  PROCESS_FACT_TYPES,
  ProcessFact,
  ProcessManager,
  ProcessState,
  processStream,
  processStreamDecider,
  ProcessStreamCommand,
  ProcessTrigger,
} from './process-manager';

/** Where a sent command came from: its handler derives its events' ids from `commandId` and writes these as metadata. */
export interface CommandContext {
  commandId: string;
  /** The process-manager event that issued the command. */
  causationId: string;
  /** The request (or first event) the whole process started from. */
  correlationId?: string;
}

export interface ProcessManagerRuntimeOptions<C> {
  store: EventStore;
  coordination: Coordination;
  now: () => Date;
  /** Sends one command. Must be idempotent on `context.commandId`: after a crash a command may be sent again. */
  send(command: C, context: CommandContext): Promise<void>;
  holder?: string;
  leaseTtlMs?: number;
  /** How often due timers are looked for. */
  timerPollMs?: number;
  log?: (msg: string, extra?: object) => void;
  /**
   * Called once this process runs the manager (true: it took the lease, before the first
   * event is applied) and once it stops (false), for effects that must run in the lease
   * holder only (the issuance steps stop their chains when the lease is lost).
   */
  onRunning?(running: boolean): void | Promise<void>;
  /**
   * Processes run side by side instead of one event at a time: each process's observed
   * events are recorded and its commands sent in log order, one at a time, while
   * different processes go on concurrently (their appends share the store's group
   * commit; one process's slow command holds up only that process). The saved checkpoint
   * never passes work not finished, so a crash redelivers it; work that fails is tried
   * again after a backoff. For managers with many busy processes whose commands take a
   * while (certificate issuance: ACME requests).
   */
  concurrentProcesses?: boolean;
}

const MAX_CONFLICT_RETRIES = 10;
const DUE_BATCH = 100;
const WORK_RETRY_FIRST_MS = 1000;
const WORK_RETRY_MAX_MS = 30_000;
/** Checkpoints after batches with none of the manager's events: every this many events, or this long after the first unsaved one. */
const SKIPPED_CHECKPOINT_EVERY = 1000;
const SKIPPED_CHECKPOINT_IDLE_MS = 1000;

/**
 * Runs one process manager in exactly one process (a lease) as a checkpointed consumer
 * of `$all`. Each step is an append first and an effect after:
 * - an observed event is recorded in the process stream together with what the manager
 *   decided (commands issued, timers scheduled), in one append with ids derived from the
 *   observed event, so a redelivered event changes nothing;
 * - the runtime then meets its own facts on `$all`: an issued command is sent, a
 *   scheduled timer is written to the coordination store's timer table;
 * - a due timer is recorded as fired (with the decisions it leads to) the same way.
 * A crash between a decision and its command leaves the checkpoint before the issued
 * command, so the next holder sends it; one after sending sends it again with the same
 * id, which its handler recognises.
 */
export class ProcessManagerRuntime<S, F, C> {
  private readonly streams: EventStreams;
  private readonly decider: Decider<ProcessState<S>, ProcessStreamCommand<F>, ProcessFact<F, C>>;
  private readonly prefix: string;
  private readonly handles: Set<string>;
  private readonly lease: LeasedWork;
  private consumer: CheckpointedConsumer | null = null;
  private timerPoll: NodeJS.Timeout | null = null;
  private firing: Promise<number> = Promise.resolve(0);
  /** Background work not finished, by the id of the event it is for, in log order, each with the checkpoint that redelivers it. */
  private readonly pendingWork = new Map<string, Position | null>();
  /** The last background work of each process stream: the next one of that stream runs after it. */
  private readonly workTails = new Map<string, Promise<void>>();
  private appliedSinceSave = false;
  private skippedSinceSave = 0;
  private checkpointTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly manager: ProcessManager<S, F, C>,
    private readonly options: ProcessManagerRuntimeOptions<C>,
  ) {
    this.streams = new EventStreams(options.store);
    this.decider = processStreamDecider(manager);
    this.prefix = processStream(manager.name, '');
    this.handles = new Set([...manager.observes, ...PROCESS_FACT_TYPES]);
    this.lease = new LeasedWork(options.coordination, `pm:${manager.name}`, options.holder ?? newHolderId(), {
      ttlMs: options.leaseTtlMs,
      onAcquired: () => this.run(),
      onReleased: () => this.halt(),
      log: options.log,
    });
  }

  private get checkpointKey() {
    return `pm:${this.manager.name}`;
  }

  get running(): boolean {
    return this.consumer !== null;
  }

  start(): Promise<void> {
    return this.lease.start();
  }

  stop(): Promise<void> {
    return this.lease.stop();
  }

  private async run(): Promise<void> {
    const { coordination, store, log } = this.options;
    const from = (await coordination.positions([this.checkpointKey])).get(this.checkpointKey) ?? null;
    this.pendingWork.clear();
    this.consumer = new CheckpointedConsumer({
      name: this.checkpointKey,
      store,
      from: positionFromString(from),
      handles: this.handles,
      apply: (event) => {
        this.appliedSinceSave = true;
        return this.apply(event);
      },
      batchDone: (events) => this.checkpoint(events),
      log,
    });
    // The host hears of it before the first command is sent, so its handlers already know they run.
    await this.options.onRunning?.(true);
    this.consumer.start();
    log?.('process manager started', { process_manager: this.manager.name, from });
    this.timerPoll = setInterval(
      () => void this.fireDueTimers().catch((e) => log?.('timer poll failed', { error: String(e) })),
      this.options.timerPollMs ?? 1000,
    );
    this.timerPoll.unref();
  }

  /**
   * Saves the position after a batch that held an event of this manager at once; after
   * batches of other events only every SKIPPED_CHECKPOINT_EVERY events, or
   * SKIPPED_CHECKPOINT_IDLE_MS after the first batch left unsaved. Every batch was a write to
   * the coordination store per manager (a DDNS load commits ~100 batches a second); a crash now costs at most
   * that many events read again and skipped, and a redelivered event of the manager changes
   * nothing (its facts have ids derived from it).
   */
  private checkpoint(events: number): Promise<void> | void {
    this.skippedSinceSave += events;
    if (!this.appliedSinceSave && this.skippedSinceSave < SKIPPED_CHECKPOINT_EVERY) {
      this.checkpointTimer ??= setTimeout(
        () => void this.saveCheckpoint().catch(() => undefined),
        SKIPPED_CHECKPOINT_IDLE_MS,
      );
      this.checkpointTimer.unref();
      return;
    }
    return this.saveCheckpoint();
  }

  private async saveCheckpoint(): Promise<void> {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    this.appliedSinceSave = false;
    this.skippedSinceSave = 0;
    const consumer = this.consumer;
    if (consumer)
      await this.options.coordination.savePosition(
        this.checkpointKey,
        positionToString(this.resumePosition(consumer.position)),
      );
  }

  private async halt(): Promise<void> {
    if (this.timerPoll) clearInterval(this.timerPoll);
    this.timerPoll = null;
    await this.firing.catch(() => 0);
    const consumer = this.consumer;
    this.consumer = null;
    if (!consumer) return;
    await this.options.onRunning?.(false);
    await consumer.stop();
    await this.workSettled();
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    await this.options.coordination.savePosition(
      this.checkpointKey,
      positionToString(this.resumePosition(consumer.position)),
    );
  }

  /** Where a restart must resume: before the oldest unfinished background work, else after `position`. */
  private resumePosition(position: Position | null): Position | null {
    for (const from of this.pendingWork.values()) return from;
    return position;
  }

  private async workSettled(): Promise<void> {
    while (this.workTails.size > 0) await Promise.allSettled([...this.workTails.values()]);
  }

  /** Queues work for an event behind the same process's earlier work; tried until it succeeds or this process stops running the manager. */
  private inBackground(stream: string, event: RecordedEvent, work: () => Promise<unknown>): void {
    const consumer = this.consumer!;
    // The consumer's position is at or before the event preceding this one: resuming there delivers it again.
    this.pendingWork.set(event.id, consumer.position);
    const previous = this.workTails.get(stream) ?? Promise.resolve();
    const run = previous.then(async () => {
      for (
        let backoff = WORK_RETRY_FIRST_MS;
        this.consumer === consumer;
        backoff = Math.min(backoff * 2, WORK_RETRY_MAX_MS)
      ) {
        try {
          await work();
          this.pendingWork.delete(event.id);
          return;
        } catch (e) {
          this.options.log?.('process step failed; trying again', {
            event_id: event.id,
            error: String(e),
            backoff_ms: backoff,
          });
          await new Promise((r) => setTimeout(r, backoff).unref());
        }
      }
    });
    const tail = run.finally(() => {
      if (this.workTails.get(stream) === tail) this.workTails.delete(stream);
    });
    this.workTails.set(stream, tail);
  }

  private async apply(event: RecordedEvent): Promise<void> {
    if (!PROCESS_FACT_TYPES.has(event.type)) {
      const observed = this.manager.observe(event);
      if (!observed) return;
      const record = () =>
        this.record({ kind: 'observed', process: observed.process, fact: observed.fact }, event.id, event);
      if (this.options.concurrentProcesses)
        this.inBackground(processStream(this.manager.name, observed.process), event, record);
      else await record();
      return;
    }
    if (!event.streamId.startsWith(this.prefix)) return; // another manager's fact
    const fact = { type: event.type, data: event.data } as ProcessFact<F, C>;
    const { coordination, send } = this.options;
    switch (fact.type) {
      case 'ProcessCommandIssued': {
        // The command's events name this fact as their cause and carry the process's correlation on.
        const sendOnce = () =>
          runWithOrigin({ causationId: event.id, correlationId: event.metadata.correlation_id, actor: 'system' }, () =>
            send(fact.data.command, {
              commandId: fact.data.command_id,
              causationId: event.id,
              correlationId: event.metadata.correlation_id,
            }),
          );
        if (this.options.concurrentProcesses) this.inBackground(event.streamId, event, sendOnce);
        else await sendOnce();
        return;
      }
      case 'ProcessTimerScheduled':
        await coordination.scheduleTimer({
          owner: this.manager.name,
          id: fact.data.timer_id,
          stream: event.streamId,
          dueAt: Date.parse(fact.data.due_at),
        });
        return;
      case 'ProcessTimerFired':
        await coordination.cancelTimer(this.manager.name, event.streamId, fact.data.timer_id);
        return;
      case 'ProcessTimerCancelled':
        await coordination.cancelTimer(this.manager.name, event.streamId, fact.data.timer_id);
        return;
      default:
        return;
    }
  }

  /** Appends a trigger and its decisions to the process stream, once; re-decided on a concurrent append. */
  private async record(
    trigger: ProcessTrigger<F>,
    eventId: string | undefined,
    cause?: RecordedEvent,
  ): Promise<boolean> {
    const stream = processStream(this.manager.name, trigger.process);
    const key = trigger.kind === 'observed' ? `observed:${eventId}` : `timer:${trigger.timerId}`;
    // A timer has no cause of its own: its facts carry on the correlation the process started with.
    const correlationId = cause
      ? cause.metadata.correlation_id
      : (await this.options.store.readStream(stream, { maxCount: 1 }))[0]?.metadata.correlation_id;
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.streams.loadState(stream, this.decider);
      const facts = this.decider.decide({ trigger, eventId }, state);
      if (facts.length === 0) return false;
      const metadata = {
        version: 1,
        actor: 'system',
        ...(cause ? { causation_id: cause.id } : {}),
        ...(correlationId ? { correlation_id: correlationId } : {}),
      };
      try {
        await this.options.store.appendToStream(
          stream,
          facts.map((f, i) => ({
            id: nameBasedEventId(`${this.manager.name}:${trigger.process}:${key}:${i}`),
            type: f.type,
            data: f.data,
            metadata,
          })),
          revision === -1 ? 'no_stream' : revision,
        );
        return true;
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError) || attempt >= MAX_CONFLICT_RETRIES) throw e;
      }
    }
  }

  /** Records every due timer as fired (one poll at a time); returns how many fired. */
  fireDueTimers(): Promise<number> {
    this.firing = this.firing
      .catch(() => 0)
      .then(async () => {
        if (!this.consumer) return 0;
        const now = this.options.now();
        let fired = 0;
        for (const t of await this.options.coordination.dueTimers(this.manager.name, now.getTime(), DUE_BATCH)) {
          const process = t.stream.slice(this.prefix.length);
          if (await this.record({ kind: 'timer', process, timerId: t.id, at: now.toISOString() }, undefined))
            fired += 1;
          else await this.options.coordination.cancelTimer(this.manager.name, t.stream, t.id); // fired or cancelled meanwhile
        }
        return fired;
      });
    return this.firing;
  }

  /**
   * Catches up with the store, fires what is due, and catches up again (so the commands
   * the timers led to have been sent). For operators and tests; the poll does the same
   * on its own. A process not holding the lease does nothing.
   */
  async runDue(timeoutMs = 10_000): Promise<number> {
    if (!this.consumer) return 0;
    await this.caughtUp(timeoutMs);
    const fired = await this.fireDueTimers();
    await this.caughtUp(timeoutMs);
    await this.workSettled();
    return fired;
  }

  /**
   * Waits until the consumer has met everything in the store, including what meeting it
   * appended: an observed event is recorded with its scheduled timer in a new append, and
   * the timer reaches the timer table only once the consumer meets that one too.
   */
  private async caughtUp(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let head = await this.options.store.headPosition(); head && Date.now() < deadline;) {
      while (this.consumer && (this.consumer.position?.commit ?? -1n) < head.commit && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await this.workSettled();
      const now = await this.options.store.headPosition();
      if (!now || now.commit === head.commit) return;
      head = now;
    }
  }
}
