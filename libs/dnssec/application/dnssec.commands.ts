import { Inject, Injectable } from '@nestjs/common';
import { EventMetadata } from '../../eventstore/event-store.port';
import { eventMetadata } from '../../eventstore/event-metadata';
import { EventStreams } from '../../eventstore/event-streams';
import { CLOCK, Clock } from '../../shared/clock';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { validationFailed } from '../../shared/errors';
import { DEFAULT_ALGORITHM, DnssecCommand, dnssecDecider, DnssecState, NewKey, RolloverPhase, SignatureWindow } from '../domain/dnssec.decider';
import { dnssecStream } from '../domain/dnssec.events';
import { CSK_FLAGS, dnskeyRdata, generateKey, isAlgorithm, KEY_SEAL_PURPOSE, keyTag } from '../keys';
import { ParentDsLookup } from './parent-ds';
import { signatureWindow } from './timings';

/** The zone a DNSSEC command is about: an imported zone of an account, or a dynamic-DNS zone (account null). */
export interface DnssecTarget {
  zone: string;
  zoneId: string;
  accountId: number | null;
}

export const ddnsTarget = (zone: string): DnssecTarget => ({ zone, zoneId: `ddns:${zone}`, accountId: null });

/**
 * The DNSSEC commands: each generates what the pure decider must not (keys, sealed at once;
 * the signature window from the clock; the parent's DS through the resolver) and runs the
 * decider on the zone's `dnssec-<zone>` stream, all events or none.
 */
@Injectable()
export class DnssecCommands {
  constructor(
    private readonly streams: EventStreams,
    private readonly parent: ParentDsLookup,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async state(target: DnssecTarget): Promise<DnssecState | null> {
    const { state } = await this.streams.loadState(dnssecStream(target.zone), dnssecDecider);
    return state.zoneId === target.zoneId ? state : null;
  }

  async setEnabled(target: DnssecTarget, enabled: boolean, algorithm: number | undefined, metadata: EventMetadata): Promise<void> {
    if (enabled) {
      const alg = algorithm ?? (await this.state(target))?.algorithm ?? DEFAULT_ALGORITHM;
      if (!isAlgorithm(alg)) throw validationFailed('algorithm: must be 13 (ECDSAP256SHA256) or 15 (ED25519)');
      await this.run(target, { type: 'EnableDnssec', accountId: target.accountId, algorithm: alg, key: this.newKey(alg), window: this.window() }, metadata);
      return;
    }
    if (algorithm !== undefined && !isAlgorithm(algorithm)) throw validationFailed('algorithm: must be 13 (ECDSAP256SHA256) or 15 (ED25519)');
    // Checked on every PUT (contract §17): a parent without DS lets the zone go unsigned at once.
    const parentDs = (await this.state(target))?.state === 'unsigned' ? null : await this.parent.keyTags(target.zone);
    await this.run(target, { type: 'DisableDnssec', parentDs }, metadata);
  }

  async startRollover(target: DnssecTarget, metadata: EventMetadata): Promise<void> {
    const alg = (await this.state(target))?.algorithm ?? DEFAULT_ALGORITHM;
    await this.run(target, { type: 'StartRollover', key: this.newKey(isAlgorithm(alg) ? alg : DEFAULT_ALGORITHM) }, metadata);
  }

  /** The process manager's steps: idempotent, since the decider ignores a step already taken. */
  async refresh(target: DnssecTarget, at: Date): Promise<void> {
    await this.run(target, { type: 'RefreshSignatures', window: signatureWindow(at) }, eventMetadata({ actor: 'system:dnssec' }), at);
  }

  async checkParentDs(target: DnssecTarget, at: Date): Promise<void> {
    const parentDs = await this.parent.keyTags(target.zone);
    await this.run(target, { type: 'ObserveParentDs', parentDs }, eventMetadata({ actor: 'system:dnssec' }), at);
  }

  async advanceRollover(target: DnssecTarget, phase: RolloverPhase, at: Date): Promise<void> {
    await this.run(target, { type: 'AdvanceRollover', phase }, eventMetadata({ actor: 'system:dnssec' }), at);
  }

  private window(): SignatureWindow {
    return signatureWindow(this.clock.now());
  }

  /** A new CSK, its private key sealed before anything else sees it. */
  private newKey(algorithm: 13 | 15): NewKey {
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

  private async run(target: DnssecTarget, command: DistributiveOmit<DnssecCommand, 'zone' | 'zoneId' | 'at'>, metadata: EventMetadata, at = this.clock.now()): Promise<void> {
    const full = { ...command, zone: target.zone, zoneId: target.zoneId, at: at.toISOString() } as DnssecCommand;
    await this.streams.handle(dnssecStream(target.zone), dnssecDecider, full, eventMetadata(metadata));
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
