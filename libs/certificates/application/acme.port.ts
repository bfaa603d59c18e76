/**
 * What the issuance process needs from an ACME CA. Every call is safe to repeat after a
 * crash: answering a challenge that is no longer pending and finalizing an order that
 * is already processing or valid are recognised and not sent again.
 */
export interface PlacedOrder {
  orderUrl: string;
  finalizeUrl: string;
  authorizations: Array<{ identifier: string; authzUrl: string; challengeUrl: string; value: string }>;
}

export interface ChallengeRef {
  authzUrl: string;
  challengeUrl: string;
}

export type AuthorizationOutcome = { status: 'valid' } | { status: 'pending' } | { status: 'invalid'; error: string };

export interface AcmePort {
  placeOrder(names: string[]): Promise<PlacedOrder>;
  /** An order of this account for exactly these names that can still be completed (pending or ready), or null. */
  findOpenOrder(names: string[]): Promise<PlacedOrder | null>;
  answerChallenges(challenges: ChallengeRef[]): Promise<void>;
  authorization(authzUrl: string): Promise<AuthorizationOutcome>;
  /** Finalizes (unless already done) and returns the full chain PEM, leaf first. */
  finalize(orderUrl: string, csrPem: string): Promise<string>;
  revoke(certificatePem: string): Promise<void>;
  /** RSA 2048 private key PEM and a CSR for the names (first is the common name). */
  createKeyAndCsr(names: string[]): Promise<{ privateKeyPem: string; csrPem: string }>;
}

export const ACME_PORT = Symbol('ACME_PORT');

/** A CA answer that ends the attempt (as opposed to an outage worth retrying). */
export class AcmeRefusal extends Error {}

/**
 * The CA is busy or rate limiting (HTTP 429 or 5xx): an outage to retry, at the CA's
 * Retry-After when it gave one. The wait is the process manager's timer, not a sleep.
 */
export class AcmeRetryLater extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}
