import { Decider, DomainEvent, fold } from '../decider';
import { AppError } from '../errors';

/**
 * Given/when/then for deciders: `given(events).when(command).then(events)` or
 * `.thenFails(status, message)`. Pure: no store, no clock.
 */
export function specFor<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  return {
    given(events: E[]) {
      const state = fold(decider, events);
      return {
        when(command: C) {
          const run = () => decider.decide(command, state);
          return {
            then(expected: E[]) {
              expect(run()).toEqual(expected);
            },
            thenFails(status: number, messageOrCode: string | RegExp) {
              let error: unknown;
              try {
                run();
              } catch (e) {
                error = e;
              }
              expect(error).toBeInstanceOf(AppError);
              const app = error as AppError;
              expect(app.status).toBe(status);
              if (typeof messageOrCode === 'string') expect([app.message, app.code]).toContain(messageOrCode);
              else expect(app.message).toMatch(messageOrCode);
            },
          };
        },
      };
    },
  };
}
