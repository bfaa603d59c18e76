import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner } from '../../eventstore/command-runner';
import { EventMetadata } from '../../eventstore/event-store.port';
import { eventMetadata } from '../../eventstore/event-metadata';
import { CLOCK, Clock } from '../../shared/clock';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { validationFailed } from '../../shared/errors';
import { DEFAULT_ALGORITHM, DnssecCommand, dnssecDecider, NewKey, SignatureWindow } from '../domain/dnssec.decider';
import { dnssecStream } from '../domain/dnssec.events';
import { CSK_FLAGS, dnskeyRdata, generateKey, isAlgorithm, KEY_SEAL_PURPOSE, keyTag } from '../keys';
import {
  AdvanceDnssecRollover,
  CheckParentDs,
  DnssecTarget,
  RefreshDnssecSignatures,
  SetDnssecEnabled,
  StartDnssecRollover,
} from './dnssec.commands';
import { DnssecQueries } from './dnssec.queries';
import { ParentDsLookup } from './parent-ds';
import { signatureWindow } from './timings';

/**
 * What the DNSSEC handlers share: each generates what the pure decider must not (keys,
 * sealed at once; the signature window from the clock; the parent's DS through the
 * resolver) and runs the decider on the zone's `dnssec-<zone>` stream, all events or none.
 * The answers read the stream itself (no read model), so nothing is waited for.
 */
@Injectable()
export class DnssecWriter {
  constructor(
    private readonly runner: CommandRunner,
    readonly queries: DnssecQueries,
    readonly parent: ParentDsLookup,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  window(): SignatureWindow {
    return signatureWindow(this.clock.now());
  }

  /** A new CSK, its private key sealed before anything else sees it. */
  newKey(algorithm: 13 | 15): NewKey {
    const key = generateKey(algorithm);
    const tag = keyTag(dnskeyRdata(CSK_FLAGS, algorithm, key.publicKey));
    return {
      key_tag: tag,
      algorithm,
      flags: CSK_FLAGS,
      public_key: key.publicKey.toString('base64'),
      private_key_sealed: this.box.seal(key.privateKeyDer, KEY_SEAL_PURPOSE),
    };
  }

  async run(
    target: DnssecTarget,
    command: DistributiveOmit<DnssecCommand, 'zone' | 'zoneId' | 'at'>,
    metadata: EventMetadata,
    at = this.clock.now(),
  ): Promise<void> {
    const full = { ...command, zone: target.zone, zoneId: target.zoneId, at: at.toISOString() } as DnssecCommand;
    await this.runner.run(dnssecStream(target.zone), dnssecDecider, full, eventMetadata(metadata), []);
  }
}

@CommandHandler(SetDnssecEnabled)
export class SetDnssecEnabledHandler implements ICommandHandler<SetDnssecEnabled, void> {
  constructor(private readonly w: DnssecWriter) {}

  async execute({ target, enabled, algorithm, metadata }: SetDnssecEnabled): Promise<void> {
    if (enabled) {
      const alg = algorithm ?? (await this.w.queries.state(target))?.algorithm ?? DEFAULT_ALGORITHM;
      if (!isAlgorithm(alg)) throw validationFailed('algorithm: must be 13 (ECDSAP256SHA256) or 15 (ED25519)');
      await this.w.run(
        target,
        {
          type: 'EnableDnssec',
          accountId: target.accountId,
          algorithm: alg,
          key: this.w.newKey(alg),
          window: this.w.window(),
        },
        metadata,
      );
      return;
    }
    if (algorithm !== undefined && !isAlgorithm(algorithm))
      throw validationFailed('algorithm: must be 13 (ECDSAP256SHA256) or 15 (ED25519)');
    // Checked on every PUT (contract §17): a parent without DS lets the zone go unsigned at once.
    const parentDs =
      (await this.w.queries.state(target))?.state === 'unsigned' ? null : await this.w.parent.keyTags(target.zone);
    await this.w.run(target, { type: 'DisableDnssec', parentDs }, metadata);
  }
}

@CommandHandler(StartDnssecRollover)
export class StartDnssecRolloverHandler implements ICommandHandler<StartDnssecRollover, void> {
  constructor(private readonly w: DnssecWriter) {}

  async execute({ target, metadata }: StartDnssecRollover): Promise<void> {
    const alg = (await this.w.queries.state(target))?.algorithm ?? DEFAULT_ALGORITHM;
    await this.w.run(
      target,
      { type: 'StartRollover', key: this.w.newKey(isAlgorithm(alg) ? alg : DEFAULT_ALGORITHM) },
      metadata,
    );
  }
}

@CommandHandler(RefreshDnssecSignatures)
export class RefreshDnssecSignaturesHandler implements ICommandHandler<RefreshDnssecSignatures, void> {
  constructor(private readonly w: DnssecWriter) {}

  async execute({ target, at }: RefreshDnssecSignatures): Promise<void> {
    await this.w.run(
      target,
      { type: 'RefreshSignatures', window: signatureWindow(at) },
      eventMetadata({ actor: 'system:dnssec' }),
      at,
    );
  }
}

@CommandHandler(CheckParentDs)
export class CheckParentDsHandler implements ICommandHandler<CheckParentDs, void> {
  constructor(private readonly w: DnssecWriter) {}

  async execute({ target, at }: CheckParentDs): Promise<void> {
    const parentDs = await this.w.parent.keyTags(target.zone);
    await this.w.run(target, { type: 'ObserveParentDs', parentDs }, eventMetadata({ actor: 'system:dnssec' }), at);
  }
}

@CommandHandler(AdvanceDnssecRollover)
export class AdvanceDnssecRolloverHandler implements ICommandHandler<AdvanceDnssecRollover, void> {
  constructor(private readonly w: DnssecWriter) {}

  async execute({ target, phase, at }: AdvanceDnssecRollover): Promise<void> {
    await this.w.run(target, { type: 'AdvanceRollover', phase }, eventMetadata({ actor: 'system:dnssec' }), at);
  }
}

export const DNSSEC_COMMAND_HANDLERS = [
  SetDnssecEnabledHandler,
  StartDnssecRolloverHandler,
  RefreshDnssecSignaturesHandler,
  CheckParentDsHandler,
  AdvanceDnssecRolloverHandler,
];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
