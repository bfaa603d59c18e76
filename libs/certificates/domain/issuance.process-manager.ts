import type { ProcessDecision, ProcessManager, ProcessTrigger } from '../../consumers/process-manager';
import { CertificateEvent, CERTIFICATE_EVENT_TYPES } from './certificate.events';

/**
 * What the issuance process records of each event of a certificate's stream: its
 * revision, its time, and until when the next step must wait (null: no wait). No
 * challenge values, keys or PEMs: the step itself reads the certificate's stream.
 */
export interface IssuanceFact {
  event: CertificateEvent['type'];
  revision: number;
  at: string;
  wait_until: string | null;
}

/** The last certificate revision seen, and the wait timer pending for it (if any). */
export interface IssuanceProcessState {
  revision: number;
  timer: string | null;
}

/** Take the next issuance step of a certificate, as decided on its stream at `revision`; a newer stream ignores it. */
export interface RunIssuanceStepCommand {
  type: 'RunIssuanceStep';
  certificateId: string;
  revision: number;
}

/** How often the runtime looks for due waits: propagation and poll waits are a fraction of a second to seconds. */
export const ISSUANCE_TIMER_POLL_MS = 200;

const waitTimer = (revision: number) => `wait:${revision}`;
const stepCommand = (certificateId: string, revision: number): ProcessDecision<RunIssuanceStepCommand> => ({
  type: 'send',
  commandId: `certificate-issuance:${certificateId}:${revision}`,
  command: { type: 'RunIssuanceStep', certificateId, revision },
});
/** A wait only when its end lies after the event (a zero propagation delay goes on at once). */
const waits = (f: IssuanceFact) => f.wait_until !== null && Date.parse(f.wait_until) > Date.parse(f.at);

/** Until when the step after an event must wait: the DNS propagation delay, the next authorization poll, an outage's retry. */
function waitUntil(e: CertificateEvent, propagationDelayMs: number): string | null {
  switch (e.type) {
    case 'ChallengeRecordsPublished':
      return new Date(Date.parse(e.data.at) + propagationDelayMs).toISOString();
    case 'AuthorizationsPending':
      return e.data.next_poll_at;
    case 'IssuanceStepDeferred':
      return e.data.retry_at;
    default:
      return null;
  }
}

/**
 * Certificate issuance, one process per certificate, and the only thing that starts or
 * resumes it. Every event of the certificate's stream (a request, a renewal, a deletion,
 * each step's outcome, any other change) leads to one `RunIssuanceStep` for that stream
 * revision, whose handler asks the pure planner (issuance-plan.ts) for the next step on
 * the stream and takes it, recording its outcome as the next event; when the event
 * says to wait (DNS propagation, the next authorization poll, a retry after an outage
 * or the CA's Retry-After) the command waits as a timer of the runtime instead, so a
 * restart resumes from the event log and the timer table, never from a read model. A
 * newer event cancels the wait: its own command takes over.
 *
 * The propagation delay is configuration, so the manager is built with it (as daily jobs
 * are with their time); everything else comes in on the events.
 */
export function issuanceProcess(
  propagationDelayMs: number,
): ProcessManager<IssuanceProcessState, IssuanceFact, RunIssuanceStepCommand> {
  return {
    // Not `certificate-issuance`: that stream family held the earlier start-only manager's facts.
    name: 'certificate-issuance-steps',
    // Every event of the stream: a step decided on an older revision is ignored, so each must bring its own.
    observes: CERTIFICATE_EVENT_TYPES,

    observe(event) {
      const e = { type: event.type, data: event.data } as CertificateEvent;
      return {
        process: e.data.certificate_id,
        fact: { event: e.type, revision: event.revision, at: e.data.at, wait_until: waitUntil(e, propagationDelayMs) },
      };
    },

    initialState: () => ({ revision: -1, timer: null }),

    evolve(state, trigger) {
      if (trigger.kind === 'timer') return trigger.timerId === state.timer ? { ...state, timer: null } : state;
      if (trigger.fact.revision <= state.revision) return state;
      return { revision: trigger.fact.revision, timer: waits(trigger.fact) ? waitTimer(trigger.fact.revision) : null };
    },

    decide(trigger: ProcessTrigger<IssuanceFact>, state): ProcessDecision<RunIssuanceStepCommand>[] {
      if (trigger.kind === 'timer')
        return trigger.timerId === state.timer ? [stepCommand(trigger.process, state.revision)] : [];
      const f = trigger.fact;
      if (f.revision <= state.revision) return [];
      const decisions: ProcessDecision<RunIssuanceStepCommand>[] = state.timer
        ? [{ type: 'cancel', timerId: state.timer }]
        : [];
      decisions.push(
        waits(f)
          ? { type: 'schedule', timerId: waitTimer(f.revision), dueAt: f.wait_until! }
          : stepCommand(trigger.process, f.revision),
      );
      return decisions;
    },
  };
}
