import type { ProcessDecision, ProcessManager, ProcessTrigger } from '../../consumers/process-manager';
import type { CertificateDeleted, CertificateRequested, RenewalRequested } from './certificate.events';

/** Why a certificate has issuance work: its request, a renewal attempt, or its deletion (challenge records to remove). */
export type IssuanceWork = { type: 'work_requested'; cause: 'requested' | `renewal:${number}` | 'deleted' };

/** Which causes this process has already sent a drive for (the runtime also refuses a command id twice). */
export interface IssuanceStartState {
  driven: string[];
}

export interface DriveIssuance {
  type: 'DriveIssuance';
  certificateId: string;
}

export const ISSUANCE_OBSERVES = ['CertificateRequested', 'RenewalRequested', 'CertificateDeleted'] as const;

type Observed = CertificateRequested | RenewalRequested | CertificateDeleted;

/**
 * Starts the issuance driver for each certificate with work, in the one worker holding
 * the lease, whichever process appended the request: one process per certificate, one
 * `DriveIssuance` per cause with an id derived from it. The driver's steps (ACME, DNS)
 * stay with the driver, which resumes from the certificate's stream; this manager only
 * says when it must run, in place of a sweep over the read model every 30 seconds.
 */
export const issuanceStartProcess: ProcessManager<IssuanceStartState, IssuanceWork, DriveIssuance> = {
  name: 'certificate-issuance',
  observes: ISSUANCE_OBSERVES,

  observe(event) {
    const e = { type: event.type, data: event.data } as Observed;
    switch (e.type) {
      case 'CertificateRequested':
        return { process: e.data.certificate_id, fact: { type: 'work_requested', cause: 'requested' } };
      case 'RenewalRequested':
        return { process: e.data.certificate_id, fact: { type: 'work_requested', cause: `renewal:${e.data.attempt}` } };
      case 'CertificateDeleted':
        return { process: e.data.certificate_id, fact: { type: 'work_requested', cause: 'deleted' } };
      default:
        return null;
    }
  },

  initialState: () => ({ driven: [] }),

  evolve(state, trigger) {
    return trigger.kind === 'observed' ? { driven: [...state.driven, trigger.fact.cause] } : state;
  },

  decide(trigger: ProcessTrigger<IssuanceWork>, state): ProcessDecision<DriveIssuance>[] {
    if (trigger.kind !== 'observed' || state.driven.includes(trigger.fact.cause)) return [];
    return [
      {
        type: 'send',
        commandId: `certificate-issuance:${trigger.process}:${trigger.fact.cause}`,
        command: { type: 'DriveIssuance', certificateId: trigger.process },
      },
    ];
  },
};
