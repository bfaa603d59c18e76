import { eventMetadata } from './event-metadata';
import { AppError, conflict } from '../shared/errors';
import { Decider, DomainEvent, fold } from '../shared/decider';
import {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  RecordedEvent,
  WrongExpectedVersionError,
} from './event-store.port';
import { upcast } from './upcasters';
import { nameBasedEventId } from './event-id';

export interface HandleResult<S, E> {
  events: E[];
  state: S;
  /** Global position of the last appended event (null when the decision produced none). */
  position: Position | null;
  revision: number;
}

const MAX_CONFLICT_RETRIES = 10;
/** Conflicts a step keyed by its command id re-decides before it fails (the process-manager runtime then retries it). */
const ONCE_CONFLICT_RETRIES = 5;

/**
 * Command-side access to streams: read a stream, fold it with a decider, decide, and
 * append with the revision that was read. A concurrent writer makes the append fail;
 * the command is then re-decided on the fresh state a bounded number of times before
 * answering 409, so a command appends all its events or none.
 */
interface CachedState {
  decider: object;
  state: unknown;
  revision: number;
}

/** Folded states kept per stream; only events after the cached revision are read again. */
const STATE_CACHE_SIZE = 10_000;

export class EventStreams {
  private readonly states = new Map<string, CachedState>();

  constructor(private readonly store: EventStore) {}

  /**
   * The folded state of a stream and its revision. Streams only grow, and `evolve` never
   * mutates the state it is given, so a state folded earlier plus the events appended since
   * (by this process or any other) is the state; only that tail is read.
   */
  async loadState<S, E extends DomainEvent>(
    stream: string,
    decider: Pick<Decider<S, any, E>, 'initialState' | 'evolve'>,
  ): Promise<{ state: S; revision: number }> {
    const cached = this.states.get(stream);
    const base = cached && cached.decider === decider ? cached : null;
    const tail = (await this.store.readStream(stream, base ? { fromRevision: base.revision + 1 } : {})).map(upcast);
    let state = base ? (base.state as S) : decider.initialState();
    for (const r of tail) state = decider.evolve(state, { type: r.type, data: r.data } as E);
    const revision = tail.length ? tail[tail.length - 1].revision : (base?.revision ?? -1);
    this.remember(stream, decider, state, revision);
    return { state, revision };
  }

  private cached<S>(stream: string, decider: object): { state: S; revision: number } | null {
    const hit = this.states.get(stream);
    return hit && hit.decider === decider ? { state: hit.state as S, revision: hit.revision } : null;
  }

  private remember(stream: string, decider: object, state: unknown, revision: number): void {
    if (revision < 0) return;
    this.states.delete(stream);
    this.states.set(stream, { decider, state, revision });
    if (this.states.size > STATE_CACHE_SIZE) this.states.delete(this.states.keys().next().value!);
  }

  async load<S, E extends DomainEvent>(
    stream: string,
    decider: Pick<Decider<S, any, E>, 'initialState' | 'evolve'>,
  ): Promise<{ state: S; revision: number; events: RecordedEvent[] }> {
    const recorded = (await this.store.readStream(stream)).map(upcast);
    const state = fold(
      decider,
      recorded.map((r) => ({ type: r.type, data: r.data }) as E),
    );
    const revision = recorded.length ? recorded[recorded.length - 1].revision : -1;
    return { state, revision, events: recorded };
  }

  async handle<S, C, E extends DomainEvent>(
    stream: string,
    decider: Decider<S, C, E>,
    command: C | ((state: S) => C),
    metadata: EventMetadata,
  ): Promise<HandleResult<S, E>> {
    for (let attempt = 0; ; attempt++) {
      // The cached state first, without a promise: a DDNS update of a host updated before decides there.
      const { state, revision, events } =
        (attempt === 0 ? this.decideCached(stream, decider, command) : null) ??
        (await this.decideLoaded(stream, decider, command));
      if (events.length === 0) return { events, state, position: null, revision };
      try {
        const result = await this.append(stream, events, revision === -1 ? 'no_stream' : revision, metadata);
        let next = state;
        for (const e of events) next = decider.evolve(next, e);
        this.remember(stream, decider, next, result.nextExpectedRevision);
        return { events, state: next, position: result.position, revision: result.nextExpectedRevision };
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError)) throw e;
        if (attempt >= MAX_CONFLICT_RETRIES) {
          throw conflict('concurrent_modification', 'The resource was changed concurrently; retry the request');
        }
        await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
      }
    }
  }

  /**
   * For commands that may come twice (a process manager's after a crash, or from two workers
   * at once): the events get ids derived from `commandKey`, so the store keeps one copy, and
   * the deciders ignore what they have already seen. A concurrent change to the stream
   * re-decides a few times, then fails the command so that its sender retries it.
   */
  async handleOnce<S, C, E extends DomainEvent>(
    stream: string,
    decider: Decider<S, C, E>,
    command: C,
    commandKey: string,
    metadata: EventMetadata,
  ): Promise<E[]> {
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.loadState(stream, decider);
      const events = decider.decide(command, state);
      if (events.length === 0) return [];
      try {
        await this.store.appendToStream(
          stream,
          events.map((e, i) => ({
            id: nameBasedEventId(`${commandKey}:${i}`),
            type: e.type,
            data: e.data,
            metadata: eventMetadata(metadata),
          })),
          revision === -1 ? 'no_stream' : revision,
        );
        return events;
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError) || attempt >= ONCE_CONFLICT_RETRIES) throw e;
      }
    }
  }

  /**
   * Decides on the cached state, without reading the stream: a decision with events is
   * checked by the expected-revision append anyway. A no-op or a refusal would not be
   * caught that way, so for those (and without a cached state) this answers null and the
   * caller decides on the stream as read (`decideLoaded`).
   */
  private decideCached<S, C, E extends DomainEvent>(
    stream: string,
    decider: Decider<S, C, E>,
    command: C | ((state: S) => C),
  ): { state: S; revision: number; events: E[] } | null {
    const cached = this.cached<S>(stream, decider);
    if (!cached) return null;
    try {
      const events = decideWith(decider, command, cached.state);
      if (events.length > 0) return { state: cached.state, revision: cached.revision, events };
    } catch {
      // Confirmed (or corrected) on the stream as read.
    }
    return null;
  }

  private async decideLoaded<S, C, E extends DomainEvent>(
    stream: string,
    decider: Decider<S, C, E>,
    command: C | ((state: S) => C),
  ): Promise<{ state: S; revision: number; events: E[] }> {
    const loaded = await this.loadState(stream, decider);
    return { state: loaded.state, revision: loaded.revision, events: decideWith(decider, command, loaded.state) };
  }

  append(
    stream: string,
    events: DomainEvent[],
    expected: ExpectedRevision,
    metadata: EventMetadata,
  ): Promise<AppendResult> {
    const toAppend: NewEvent[] = events.map((e) => ({
      type: e.type,
      data: e.data,
      metadata: eventMetadata(metadata),
    }));
    return this.store.appendToStream(stream, toAppend, expected);
  }

  /** Claims a unique name (username, fqdn…) with a NO_STREAM append; false when taken. */
  async reserve(stream: string, event: DomainEvent, metadata: EventMetadata): Promise<boolean> {
    try {
      await this.append(stream, [event], 'no_stream', metadata);
      return true;
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) return false;
      throw e;
    }
  }
}

function decideWith<S, C, E extends DomainEvent>(
  decider: Decider<S, C, E>,
  command: C | ((state: S) => C),
  state: S,
): E[] {
  return decider.decide(typeof command === 'function' ? (command as (s: S) => C)(state) : command, state);
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
