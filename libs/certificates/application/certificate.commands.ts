import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { KeyedLock } from '../../domains/application/keyed-lock';
import { Plan } from '../../accounts/domain/account.events';
import { EventMetadata } from '../../eventstore/event-store.port';
import { CommandRunner } from '../../eventstore/command-runner';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { AppError, conflict, notFound } from '../../shared/errors';
import { Metrics, METRICS } from '../../shared/metrics';
import { zoneDecider } from '../../zones/domain/zone.decider';
import { zoneStream } from '../../zones/domain/zone.events';
import { ZONES } from '../../../projections/zones.projection';
import { CA_WINDOW_MS, checkCaLimits, namesKey } from '../domain/ca-limits';
import { certificateDecider, CertificateState } from '../domain/certificate.decider';
import { certificateNotFound, checkRequest, MAX_CERTIFICATES, normalizeName, requirePaid } from '../domain/certificate-rules';
import { certificateStream, CERTIFICATE_KEY_PURPOSE } from '../domain/certificate.events';
import { LedgerCommand, ledgerDecider, ledgerStream } from '../domain/certificate-ledger';
import { ACME_PORT, AcmePort } from './acme.port';
import { CERTIFICATE_ISSUANCES, CERTIFICATES } from '../../../projections/certificates.projection';
import { IssuanceDriver } from './issuance.driver';

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

const READ_MODELS = [CERTIFICATES.projection];
const metadataOf = (c: CertificateCaller): EventMetadata => ({ actor: c.actor, account_id: c.accountId, source_ip: c.sourceIp });
const SYSTEM = (accountId: number): EventMetadata => ({ actor: 'system:certificates', account_id: accountId });

/**
 * The write side of the certificates API and the renewal job. Plan, zone and name rules
 * are pure (certificate-rules); the per-account limit and one-certificate-per-domain
 * are decided on the account's ledger stream; the certificate's own stream holds the
 * rest. A create that passes returns at once; the issuance driver takes over.
 */
@Injectable()
export class CertificateCommands {
  constructor(
    private readonly runner: CommandRunner,
    private readonly directory: AccountDirectory,
    private readonly projections: ProjectionEngine,
    private readonly driver: IssuanceDriver,
    private readonly lock: KeyedLock,
    @Inject(ACME_PORT) private readonly acme: AcmePort,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  async planOf(accountId: number): Promise<Plan> {
    const { state } = await this.directory.load(accountId);
    if (!state.exists) throw notFound('Account not found');
    return state.plan;
  }

  async create(caller: CertificateCaller, input: CreateCertificateInput): Promise<string> {
    const plan = await this.planOf(caller.accountId);
    requirePaid(plan);
    const zone = await this.verifiedZone(caller.accountId, input.zone);
    const names = checkRequest({ plan, zone, domain: input.domain, sans: input.sans, wildcard: input.wildcard, autoRenew: input.autoRenew });
    const at = this.clock.now();
    await this.checkCaLimits(zone!.name, names, at.getTime());
    const certificateId = randomUUID();
    const domain = names[0];
    await this.ledger(
      caller.accountId,
      { type: 'TakeSlot', accountId: caller.accountId, certificateId, domain, limit: MAX_CERTIFICATES[plan], at: at.toISOString() },
      metadataOf(caller),
    );
    try {
      await this.runner.run(
        certificateStream(certificateId),
        certificateDecider,
        {
          type: 'RequestCertificate',
          certificateId,
          accountId: caller.accountId,
          zoneId: zone!.id,
          zone: zone!.name,
          domain,
          sans: names.filter((n) => n !== domain && !n.startsWith('*.')),
          names,
          isWildcard: input.wildcard,
          autoRenew: input.autoRenew,
          at: at.toISOString(),
        },
        metadataOf(caller),
        READ_MODELS,
      );
    } catch (e) {
      await this.releaseSlot(caller.accountId, certificateId);
      throw e;
    }
    this.driver.kick(certificateId);
    return certificateId;
  }

  async renew(caller: CertificateCaller | null, certificateId: string, trigger: 'manual' | 'automatic', now?: Date): Promise<void> {
    const { state } = await this.load(certificateId, caller?.accountId ?? null);
    const plan = await this.planOf(state.accountId);
    requirePaid(plan);
    const at = now ?? this.clock.now();
    await this.checkCaLimits(state.zone, state.names, at.getTime());
    // Out of expired the certificate holds a plan slot again (it stops counting when it expires).
    if (state.status === 'expired') {
      await this.ledger(
        state.accountId,
        { type: 'TakeSlot', accountId: state.accountId, certificateId, domain: state.domain, limit: MAX_CERTIFICATES[plan], at: at.toISOString() },
        caller ? metadataOf(caller) : SYSTEM(state.accountId),
      );
    }
    await this.runner.run(
      certificateStream(certificateId),
      certificateDecider,
      { type: 'RenewCertificate', accountId: caller?.accountId ?? null, plan, trigger, at: at.toISOString() },
      caller ? metadataOf(caller) : SYSTEM(state.accountId),
      READ_MODELS,
    );
    this.driver.kick(certificateId);
  }

  async setAutoRenew(caller: CertificateCaller, certificateId: string, autoRenew: boolean): Promise<void> {
    await this.load(certificateId, caller.accountId);
    const plan = await this.planOf(caller.accountId);
    await this.runner.run(
      certificateStream(certificateId),
      certificateDecider,
      { type: 'SetAutoRenew', accountId: caller.accountId, plan, autoRenew, at: this.clock.now().toISOString() },
      metadataOf(caller),
      READ_MODELS,
    );
  }

  /** Delete, revoking at the CA first when asked and a certificate that has not expired exists. */
  async delete(caller: CertificateCaller, certificateId: string, revoke: boolean): Promise<void> {
    const { state } = await this.load(certificateId, caller.accountId);
    let revokedSerial: string | null = null;
    if (revoke && state.current && state.status !== 'expired') {
      // Revoked at the CA first: if the CA does not confirm, nothing is deleted and the client may retry.
      await this.acme.revoke(state.current.certificatePem).catch((e: Error) => {
        throw new AppError(502, 'ca_error', `The certificate authority did not revoke the certificate: ${e.message}`);
      });
      revokedSerial = state.current.serial;
    }
    const at = this.clock.now().toISOString();
    await this.runner.run(
      certificateStream(certificateId),
      certificateDecider,
      { type: 'DeleteCertificate', accountId: caller.accountId, revokedSerial, at },
      metadataOf(caller),
      READ_MODELS,
    );
    await this.releaseSlot(caller.accountId, certificateId);
    this.driver.kick(certificateId);
  }

  /** issued → expired once the date passes; the plan slot is freed, the domain stays taken. */
  async expire(certificateId: string, now: Date): Promise<boolean> {
    const { state } = await this.load(certificateId, null);
    const result = await this.runner.streams.handle(
      certificateStream(certificateId),
      certificateDecider,
      { type: 'ExpireCertificate', at: now.toISOString() },
      SYSTEM(state.accountId),
    );
    if (result.events.length === 0) return false;
    await this.ledger(state.accountId, { type: 'ParkSlot', accountId: state.accountId, certificateId, at: now.toISOString() }, SYSTEM(state.accountId));
    return true;
  }

  /** PEMs from the certificate's stream; the key is unsealed only for this answer. */
  async download(accountId: number, certificateId: string) {
    const { state } = await this.load(certificateId, accountId);
    if (!state.current || state.status === 'revoked') throw conflict('not_issued', 'The certificate has not been issued yet');
    return {
      certificate_pem: state.current.certificatePem,
      chain_pem: state.current.chainPem,
      private_key_pem: this.box.openString(state.current.sealedPrivateKey, CERTIFICATE_KEY_PURPOSE),
    };
  }

  private async load(certificateId: string, accountId: number | null): Promise<{ state: CertificateState }> {
    if (!/^[0-9a-f-]{36}$/.test(certificateId)) throw certificateNotFound();
    const { state } = await this.runner.streams.loadState(certificateStream(certificateId), certificateDecider);
    if (state.status === 'none' || state.status === 'deleted' || (accountId !== null && state.accountId !== accountId)) throw certificateNotFound();
    return { state };
  }

  /** The caller's verified zone of that name: found through the read model, confirmed on the zone's stream. */
  private async verifiedZone(accountId: number, name: string): Promise<{ id: string; name: string } | null> {
    const doc = await this.projections.readModel(ZONES).findOne({ name: normalizeName(name), account_id: accountId });
    if (!doc) return null;
    const { state } = await this.runner.streams.loadState(zoneStream(doc.id), zoneDecider);
    return state.status === 'verified' && state.accountId === accountId ? { id: state.id, name: state.name } : null;
  }

  private async checkCaLimits(registeredDomain: string, names: string[], now: number): Promise<void> {
    const past = await this.projections
      .readModel(CERTIFICATE_ISSUANCES)
      .find({ issued_at: { $gt: new Date(now - CA_WINDOW_MS).toISOString() }, $or: [{ registered_domain: registeredDomain }, { names_key: namesKey(names) }] });
    try {
      checkCaLimits(past, registeredDomain, names, now);
    } catch (e) {
      // Counted beside the CA's outcomes: an order the CA would have refused, never sent.
      this.metrics.counter('acme_orders_total', 'ACME orders by outcome (issued, failed, rate_limited)', ['outcome']).inc({ outcome: 'rate_limited' });
      throw e;
    }
  }

  private async releaseSlot(accountId: number, certificateId: string): Promise<void> {
    await this.ledger(accountId, { type: 'ReleaseSlot', accountId, certificateId, at: this.clock.now().toISOString() }, SYSTEM(accountId));
  }

  /** Ledger decisions of one account run one at a time in this process (no revision fights on a burst of creates). */
  private ledger(accountId: number, command: LedgerCommand, metadata: EventMetadata) {
    return this.lock.run(`ledger-${accountId}`, () => this.runner.streams.handle(ledgerStream(accountId), ledgerDecider, command, metadata));
  }
}
