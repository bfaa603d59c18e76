/**
 * The write-side building block: a pure decider. No I/O, clock or randomness inside;
 * time and generated ids come in on the command. `decide` returns the events to
 * append or throws an AppError refusing the command.
 */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

export interface Decider<S, C, E extends DomainEvent> {
  initialState(): S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}

export const fold = <S, E extends DomainEvent>(
  decider: Pick<Decider<S, any, E>, 'initialState' | 'evolve'>,
  events: E[],
): S => events.reduce((s, e) => decider.evolve(s, e), decider.initialState());

/** Exhaustiveness guard for `switch` over event or command types. */
export const unreachable = (x: never): never => {
  throw new Error(`unhandled case ${JSON.stringify(x)}`);
};
