import { RecordedEvent } from '../eventstore/event-store.port';
import { Decider, DomainEvent } from '../shared/decider';
import { RecentIds } from './recent-ids';

/**
 * A process manager: a decider over its own stream (`pm-<name>-<process id>`). It
 * observes some events of other streams, keeps its own state from the facts recorded in
 * its stream, and decides commands to send (each with a deterministic id, so a command
 * sent again after a crash is recognised by its handler) and timers to schedule (stored
 * as events, so a timer fires after a restart). Pure: no I/O, clock or randomness.
 */
export interface ProcessManager<S, F, C> {
  /** Names the streams (`pm-<name>-…`), the lease and the checkpoint; never change it. */
  readonly name: string;
  /** Event types of other streams it observes. */
  readonly observes: readonly string[];
  /** The process an observed event belongs to and the fact to record of it (only what the process needs: no secrets); null to ignore it. */
  observe(event: RecordedEvent): { process: string; fact: F } | null;
  initialState(): S;
  /** Folds one recorded trigger (an observed fact or a timer that fired) into the state. */
  evolve(state: S, trigger: ProcessTrigger<F>): S;
  /** What to do about a trigger, given the state before it. */
  decide(trigger: ProcessTrigger<F>, state: S): ProcessDecision<C>[];
}

export type ProcessTrigger<F> =
  { kind: 'observed'; process: string; fact: F } | { kind: 'timer'; process: string; timerId: string; at: string };

export type ProcessDecision<C> =
  | { type: 'send'; commandId: string; command: C }
  | { type: 'schedule'; timerId: string; dueAt: string }
  | { type: 'cancel'; timerId: string };

/** The facts a process-manager stream holds; the runtime writes them, the manager's `evolve` sees the triggers. */
export type ProcessFact<F, C> =
  | DomainEvent<'ProcessEventObserved', { process: string; event_id: string; fact: F }>
  | DomainEvent<'ProcessTimerFired', { process: string; timer_id: string; at: string }>
  | DomainEvent<'ProcessCommandIssued', { command_id: string; command: C }>
  | DomainEvent<'ProcessTimerScheduled', { timer_id: string; due_at: string }>
  | DomainEvent<'ProcessTimerCancelled', { timer_id: string }>;

export const PROCESS_FACT_TYPES: ReadonlySet<string> = new Set([
  'ProcessEventObserved',
  'ProcessTimerFired',
  'ProcessCommandIssued',
  'ProcessTimerScheduled',
  'ProcessTimerCancelled',
]);

export const processStream = (manager: string, process: string) => `pm-${manager}-${process}`;

/** A process stream folded: the manager's state, plus what the runtime needs to stay idempotent. */
export interface ProcessState<S> {
  state: S;
  /** Ids of the events recorded lately (recent-ids.ts: bounded). */
  observed: RecentIds;
  /** Timers scheduled and neither fired nor cancelled. */
  pendingTimers: Set<string>;
  /** Ids of the commands issued lately (bounded likewise). */
  issued: RecentIds;
}

export const initialProcessState = <S>(pm: ProcessManager<S, any, any>): ProcessState<S> => ({
  state: pm.initialState(),
  observed: RecentIds.empty(),
  pendingTimers: new Set(),
  issued: RecentIds.empty(),
});

/** Folds one fact of the process stream; never mutates the state it is given (states are cached). */
export function evolveProcess<S, F, C>(
  pm: ProcessManager<S, F, C>,
  s: ProcessState<S>,
  fact: ProcessFact<F, C>,
): ProcessState<S> {
  const withSet = (set: Set<string>, add: string | null, remove: string | null) => {
    const next = new Set(set);
    if (add !== null) next.add(add);
    if (remove !== null) next.delete(remove);
    return next;
  };
  switch (fact.type) {
    case 'ProcessEventObserved':
      return {
        ...s,
        observed: s.observed.with(fact.data.event_id),
        state: pm.evolve(s.state, { kind: 'observed', process: fact.data.process, fact: fact.data.fact }),
      };
    case 'ProcessTimerFired':
      return {
        ...s,
        pendingTimers: withSet(s.pendingTimers, null, fact.data.timer_id),
        state: pm.evolve(s.state, {
          kind: 'timer',
          process: fact.data.process,
          timerId: fact.data.timer_id,
          at: fact.data.at,
        }),
      };
    case 'ProcessCommandIssued':
      return { ...s, issued: s.issued.with(fact.data.command_id) };
    case 'ProcessTimerScheduled':
      return { ...s, pendingTimers: withSet(s.pendingTimers, fact.data.timer_id, null) };
    case 'ProcessTimerCancelled':
      return { ...s, pendingTimers: withSet(s.pendingTimers, null, fact.data.timer_id) };
  }
}

/**
 * The facts to append for one trigger: the trigger itself, then the decisions as facts.
 * Empty when the trigger was already recorded (redelivery after a crash) or is a timer
 * no longer pending. A command already issued by this process is not issued again.
 */
export function recordTrigger<S, F, C>(
  pm: ProcessManager<S, F, C>,
  s: ProcessState<S>,
  trigger: ProcessTrigger<F>,
  eventId?: string,
): ProcessFact<F, C>[] {
  let first: ProcessFact<F, C>;
  if (trigger.kind === 'observed') {
    if (eventId === undefined || s.observed.has(eventId)) return [];
    first = { type: 'ProcessEventObserved', data: { process: trigger.process, event_id: eventId, fact: trigger.fact } };
  } else {
    if (!s.pendingTimers.has(trigger.timerId)) return [];
    first = {
      type: 'ProcessTimerFired',
      data: { process: trigger.process, timer_id: trigger.timerId, at: trigger.at },
    };
  }
  const facts: ProcessFact<F, C>[] = [first];
  for (const d of pm.decide(trigger, s.state)) {
    if (d.type === 'send' && !s.issued.has(d.commandId))
      facts.push({ type: 'ProcessCommandIssued', data: { command_id: d.commandId, command: d.command } });
    else if (d.type === 'schedule')
      facts.push({ type: 'ProcessTimerScheduled', data: { timer_id: d.timerId, due_at: d.dueAt } });
    else if (d.type === 'cancel' && s.pendingTimers.has(d.timerId))
      facts.push({ type: 'ProcessTimerCancelled', data: { timer_id: d.timerId } });
  }
  return facts;
}

/** A trigger as a process stream's command: what happened, and the id of the event observed (none for a timer). */
export interface ProcessStreamCommand<F> {
  trigger: ProcessTrigger<F>;
  eventId?: string;
}

/**
 * A process manager's stream as a decider: its facts fold with `evolveProcess`, and a trigger
 * decides the facts `recordTrigger` appends. The runtime loads process state with it, and
 * specs run it given/when/then (libs/shared/testing/process-manager-spec.ts).
 */
export const processStreamDecider = <S, F, C>(
  pm: ProcessManager<S, F, C>,
): Decider<ProcessState<S>, ProcessStreamCommand<F>, ProcessFact<F, C>> => ({
  initialState: () => initialProcessState(pm),
  evolve: (s, fact) => evolveProcess(pm, s, fact),
  decide: ({ trigger, eventId }, s) => recordTrigger(pm, s, trigger, eventId),
});
