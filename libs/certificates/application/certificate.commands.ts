import type { CommandContext } from '../../consumers/process-manager-runtime';

/** Who asked, from where: every event carries it (actor, account, source IP). */
export interface CertificateCaller {
  accountId: number;
  actor: string;
  sourceIp: string;
}

export interface CreateCertificateInput {
  zone: string;
  domain: string;
  sans: string[];
  wildcard: boolean;
  autoRenew: boolean;
}

/** Answers the new certificate's id; issuance starts from its `CertificateRequested` event. */
export class CreateCertificate {
  constructor(
    readonly caller: CertificateCaller,
    readonly input: CreateCertificateInput,
  ) {}
}

/** A manual renewal (caller set) or the renewal job's automatic one (caller null, `now` the job's). */
export class RenewCertificate {
  constructor(
    readonly caller: CertificateCaller | null,
    readonly certificateId: string,
    readonly trigger: 'manual' | 'automatic',
    readonly now?: Date,
  ) {}
}

export class SetCertificateAutoRenew {
  constructor(
    readonly caller: CertificateCaller,
    readonly certificateId: string,
    readonly autoRenew: boolean,
  ) {}
}

/** Delete, revoking at the CA first when `revoke` is set and an unexpired certificate exists. */
export class DeleteCertificate {
  constructor(
    readonly caller: CertificateCaller,
    readonly certificateId: string,
    readonly revoke: boolean,
  ) {}
}

/** issued → expired once `now` has passed its expiry (the renewal job); answers whether it expired. */
export class ExpireCertificate {
  constructor(
    readonly certificateId: string,
    readonly now: Date,
  ) {}
}

/**
 * Sent by the `certificate-issuance-steps` process manager only: take the next issuance
 * step of a certificate if its stream is still at `revision` (a newer event brings its
 * own command, so an older one does nothing).
 */
export class RunIssuanceStep {
  constructor(
    readonly certificateId: string,
    readonly revision: number,
    readonly context?: CommandContext,
  ) {}
}
