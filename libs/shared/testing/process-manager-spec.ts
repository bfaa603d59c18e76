import { Decider, DomainEvent, fold } from '../decider';
import { specFor } from './decider-spec';

/**
 * Given/when/then for process managers: `given(facts).when(trigger, eventId).then(facts)`:
 * given the facts of a process stream, when a trigger arrives (an observed event with its id,
 * or a timer firing), then the facts the runtime records (the trigger first, then the
 * decisions; none for a redelivered event or a timer no longer pending). `stream` is the
 * process manager as a decider over its stream, `processStreamDecider(pm)` from
 * libs/consumers/process-manager.ts (passed in: shared code imports no context). Pure.
 */
export function processSpecFor<S, T, E extends DomainEvent>(stream: Decider<S, { trigger: T; eventId?: string }, E>) {
  const spec = specFor(stream);
  return {
    given: (facts: E[]) => ({
      when: (trigger: T, eventId?: string) => spec.given(facts).when({ trigger, eventId }),
      /** The facts recorded after the trigger's own (the decisions), for specs that look into them. */
      decisions: (trigger: T, eventId?: string) => stream.decide({ trigger, eventId }, fold(stream, facts)).slice(1),
    }),
  };
}
