import type { CertificateStatus } from './types';

const TEXT: Record<CertificateStatus, string> = {
  pending: 'Pending',
  validating: 'Validating',
  issued: 'Issued',
  failed: 'Failed',
  expired: 'Expired',
  revoked: 'Revoked',
};
const CLASS: Record<CertificateStatus, string> = {
  pending: 'status-warn',
  validating: 'status-warn',
  issued: 'status-ok',
  failed: 'status-bad',
  expired: 'status-bad',
  revoked: 'status-off',
};

/** States the service is still working through: the screen polls while one holds. */
export const IN_PROGRESS: CertificateStatus[] = ['pending', 'validating'];

export const CertificateStatusBadge = ({ status }: { status: CertificateStatus }) => (
  <span class={`status ${CLASS[status]}`}>{TEXT[status]}</span>
);

/** The issuance path of the state machine; an end state off the path replaces its last step. */
const PATH: CertificateStatus[] = ['pending', 'validating', 'issued'];
const STEP_HINT: Record<CertificateStatus, string> = {
  pending: 'the ACME order is being placed',
  validating: 'the CA checks the DNS-01 challenge records',
  issued: 'ready to download',
  failed: 'see the log below; renew to try again',
  expired: 'renew to get a new certificate',
  revoked: 'the CA no longer vouches for it',
};

/** Where the certificate stands in pending → validating → issued (or failed/expired/revoked). */
export function StatusSteps({ status }: { status: CertificateStatus }) {
  const steps = PATH.includes(status) ? PATH : [...PATH.slice(0, 2), status];
  const at = steps.indexOf(status);
  return (
    <ol class="steps" aria-label="Issuance progress">
      {steps.map((s, i) => (
        <li
          key={s}
          class={i < at ? 'step-done' : i === at ? `step-current ${CLASS[s]}` : 'step-todo'}
          aria-current={i === at ? 'step' : undefined}
        >
          <strong>{TEXT[s]}</strong>
          {i === at && <span class="hint"> — {STEP_HINT[s]}</span>}
        </li>
      ))}
    </ol>
  );
}
