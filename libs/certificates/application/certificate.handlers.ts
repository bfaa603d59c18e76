import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { KeyedLock } from '../../domains/application/keyed-lock';
import { EventMetadata } from '../../eventstore/event-store.port';
import { CommandRunner } from '../../eventstore/command-runner';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { Metrics, METRICS } from '../../shared/metrics';
import { zoneDecider } from '../../zones/domain/zone.decider';
import { zoneStream } from '../../zones/domain/zone.events';
import { ZONES } from '../../../projections/zones.projection';
import { CA_WINDOW_MS, checkCaLimits, namesKey } from '../domain/ca-limits';
import { certificateDecider, CertificateState } from '../domain/certificate.decider';
import {
  certificateNotFound,
  checkRequest,
  MAX_CERTIFICATES,
  normalizeName,
  requirePaid,
} from '../domain/certificate-rules';
import { certificateStream } from '../domain/certificate.events';
import { LedgerCommand, ledgerDecider, ledgerStream } from '../domain/certificate-ledger';
import { ACME_PORT, AcmePort } from './acme.port';
import { CERTIFICATE_ISSUANCES, CERTIFICATES } from '../../../projections/certificates.projection';
import {
  CertificateCaller,
  CreateCertificate,
  DeleteCertificate,
  ExpireCertificate,
  RenewCertificate,
  RunIssuanceStep,
  SetCertificateAutoRenew,
} from './certificate.commands';
import { CertificateQueries } from './certificate.queries';
import { IssuanceSteps } from './issuance-steps';

const READ_MODELS = [CERTIFICATES.projection];
const metadataOf = (c: CertificateCaller): EventMetadata => ({
  actor: c.actor,
  account_id: c.accountId,
  source_ip: c.sourceIp,
});
const SYSTEM = (accountId: number): EventMetadata => ({ actor: 'system:certificates', account_id: accountId });

/**
 * What the certificate handlers share: the certificate's stream through `CommandRunner`
 * (read-your-writes on the certificates read model), the account's ledger stream for
 * plan slots and one-certificate-per-domain, and the CA limits. Plan, zone and name
 * rules are pure (certificate-rules). No handler starts issuance: the events they append
 * are what the `certificate-issuance-steps` process manager acts on.
 */
@Injectable()
export class CertificateWriter {
  constructor(
    readonly runner: CommandRunner,
    readonly queries: CertificateQueries,
    private readonly projections: ProjectionEngine,
    private readonly lock: KeyedLock,
    @Inject(CLOCK) readonly clock: Clock,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  run(certificateId: string, command: Parameters<typeof certificateDecider.decide>[0], metadata: EventMetadata) {
    return this.runner.run(certificateStream(certificateId), certificateDecider, command, metadata, READ_MODELS);
  }

  /** A live certificate of the account (any account for null), from its stream. */
  async load(certificateId: string, accountId: number | null): Promise<{ state: CertificateState }> {
    if (!/^[0-9a-f-]{36}$/.test(certificateId)) throw certificateNotFound();
    const { state } = await this.runner.streams.loadState(certificateStream(certificateId), certificateDecider);
    if (state.status === 'none' || state.status === 'deleted' || (accountId !== null && state.accountId !== accountId))
      throw certificateNotFound();
    return { state };
  }

  /** The caller's verified zone of that name: found through the read model, confirmed on the zone's stream. */
  async verifiedZone(accountId: number, name: string): Promise<{ id: string; name: string } | null> {
    const doc = await this.projections.readModel(ZONES).findOne({ name: normalizeName(name), account_id: accountId });
    if (!doc) return null;
    const { state } = await this.runner.streams.loadState(zoneStream(doc.id), zoneDecider);
    return state.status === 'verified' && state.accountId === accountId ? { id: state.id, name: state.name } : null;
  }

  async checkCaLimits(registeredDomain: string, names: string[], now: number): Promise<void> {
    const past = await this.projections.readModel(CERTIFICATE_ISSUANCES).find({
      issued_at: { $gt: new Date(now - CA_WINDOW_MS).toISOString() },
      $or: [{ registered_domain: registeredDomain }, { names_key: namesKey(names) }],
    });
    try {
      checkCaLimits(past, registeredDomain, names, now);
    } catch (e) {
      // Counted beside the CA's outcomes: an order the CA would have refused, never sent.
      this.metrics
        .counter('acme_orders_total', 'ACME orders by outcome (issued, failed, rate_limited)', ['outcome'])
        .inc({ outcome: 'rate_limited' });
      throw e;
    }
  }

  async releaseSlot(accountId: number, certificateId: string): Promise<void> {
    await this.ledger(
      accountId,
      { type: 'ReleaseSlot', accountId, certificateId, at: this.clock.now().toISOString() },
      SYSTEM(accountId),
    );
  }

  /** Ledger decisions of one account run one at a time in this process (no revision fights on a burst of creates). */
  ledger(accountId: number, command: LedgerCommand, metadata: EventMetadata) {
    return this.lock.run(`ledger-${accountId}`, () =>
      this.runner.streams.handle(ledgerStream(accountId), ledgerDecider, command, metadata),
    );
  }
}

/** A create that passes answers at once; issuance starts from the `CertificateRequested` event. */
@CommandHandler(CreateCertificate)
export class CreateCertificateHandler implements ICommandHandler<CreateCertificate, string> {
  constructor(private readonly w: CertificateWriter) {}

  async execute({ caller, input }: CreateCertificate): Promise<string> {
    const plan = await this.w.queries.planOf(caller.accountId);
    requirePaid(plan);
    const zone = await this.w.verifiedZone(caller.accountId, input.zone);
    const names = checkRequest({
      plan,
      zone,
      domain: input.domain,
      sans: input.sans,
      wildcard: input.wildcard,
      autoRenew: input.autoRenew,
    });
    const at = this.w.clock.now();
    await this.w.checkCaLimits(zone!.name, names, at.getTime());
    const certificateId = randomUUID();
    const domain = names[0];
    await this.w.ledger(
      caller.accountId,
      {
        type: 'TakeSlot',
        accountId: caller.accountId,
        certificateId,
        domain,
        limit: MAX_CERTIFICATES[plan],
        at: at.toISOString(),
      },
      metadataOf(caller),
    );
    try {
      await this.w.run(
        certificateId,
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
      );
    } catch (e) {
      await this.w.releaseSlot(caller.accountId, certificateId);
      throw e;
    }
    return certificateId;
  }
}

@CommandHandler(RenewCertificate)
export class RenewCertificateHandler implements ICommandHandler<RenewCertificate, void> {
  constructor(private readonly w: CertificateWriter) {}

  async execute({ caller, certificateId, trigger, now }: RenewCertificate): Promise<void> {
    const { state } = await this.w.load(certificateId, caller?.accountId ?? null);
    const plan = await this.w.queries.planOf(state.accountId);
    requirePaid(plan);
    const at = now ?? this.w.clock.now();
    await this.w.checkCaLimits(state.zone, state.names, at.getTime());
    const metadata = caller ? metadataOf(caller) : SYSTEM(state.accountId);
    // Out of expired the certificate holds a plan slot again (it stops counting when it expires).
    if (state.status === 'expired') {
      await this.w.ledger(
        state.accountId,
        {
          type: 'TakeSlot',
          accountId: state.accountId,
          certificateId,
          domain: state.domain,
          limit: MAX_CERTIFICATES[plan],
          at: at.toISOString(),
        },
        metadata,
      );
    }
    await this.w.run(
      certificateId,
      { type: 'RenewCertificate', accountId: caller?.accountId ?? null, plan, trigger, at: at.toISOString() },
      metadata,
    );
  }
}

@CommandHandler(SetCertificateAutoRenew)
export class SetCertificateAutoRenewHandler implements ICommandHandler<SetCertificateAutoRenew, void> {
  constructor(private readonly w: CertificateWriter) {}

  async execute({ caller, certificateId, autoRenew }: SetCertificateAutoRenew): Promise<void> {
    await this.w.load(certificateId, caller.accountId);
    const plan = await this.w.queries.planOf(caller.accountId);
    await this.w.run(
      certificateId,
      { type: 'SetAutoRenew', accountId: caller.accountId, plan, autoRenew, at: this.w.clock.now().toISOString() },
      metadataOf(caller),
    );
  }
}

@CommandHandler(DeleteCertificate)
export class DeleteCertificateHandler implements ICommandHandler<DeleteCertificate, void> {
  constructor(
    private readonly w: CertificateWriter,
    @Inject(ACME_PORT) private readonly acme: AcmePort,
  ) {}

  async execute({ caller, certificateId, revoke }: DeleteCertificate): Promise<void> {
    const { state } = await this.w.load(certificateId, caller.accountId);
    let revokedSerial: string | null = null;
    if (revoke && state.current && state.status !== 'expired') {
      // Revoked at the CA first: if the CA does not confirm, nothing is deleted and the client may retry.
      await this.acme.revoke(state.current.certificatePem).catch((e: Error) => {
        throw new AppError(502, 'ca_error', `The certificate authority did not revoke the certificate: ${e.message}`);
      });
      revokedSerial = state.current.serial;
    }
    const at = this.w.clock.now().toISOString();
    await this.w.run(
      certificateId,
      { type: 'DeleteCertificate', accountId: caller.accountId, revokedSerial, at },
      metadataOf(caller),
    );
    await this.w.releaseSlot(caller.accountId, certificateId);
  }
}

/** issued → expired once the date passes; the plan slot is freed, the domain stays taken. */
@CommandHandler(ExpireCertificate)
export class ExpireCertificateHandler implements ICommandHandler<ExpireCertificate, boolean> {
  constructor(private readonly w: CertificateWriter) {}

  async execute({ certificateId, now }: ExpireCertificate): Promise<boolean> {
    const { state } = await this.w.load(certificateId, null);
    // The renewal job reads the read model for what is due; no client waits on this answer.
    const result = await this.w.runner.streams.handle(
      certificateStream(certificateId),
      certificateDecider,
      { type: 'ExpireCertificate', at: now.toISOString() },
      SYSTEM(state.accountId),
    );
    if (result.events.length === 0) return false;
    await this.w.ledger(
      state.accountId,
      { type: 'ParkSlot', accountId: state.accountId, certificateId, at: now.toISOString() },
      SYSTEM(state.accountId),
    );
    return true;
  }
}

/** The process manager's command: one issuance step (issuance-steps.ts). */
@CommandHandler(RunIssuanceStep)
export class RunIssuanceStepHandler implements ICommandHandler<RunIssuanceStep, void> {
  constructor(private readonly steps: IssuanceSteps) {}

  execute({ certificateId, revision }: RunIssuanceStep): Promise<void> {
    return this.steps.run(certificateId, revision);
  }
}

export const CERTIFICATE_COMMAND_HANDLERS = [
  CreateCertificateHandler,
  RenewCertificateHandler,
  SetCertificateAutoRenewHandler,
  DeleteCertificateHandler,
  ExpireCertificateHandler,
  RunIssuanceStepHandler,
];
