import type { ZoneIndex } from '../dns-server';
import { dnssecDecider, DnssecState, servedKeys, signingKeys } from '../dnssec/domain/dnssec.decider';
import type { DnssecEvent } from '../dnssec/domain/dnssec.events';
import { isAlgorithm, KEY_SEAL_PURPOSE, signerFor, type Signer } from '../dnssec/keys';
import { KEY_TTL_SECONDS } from '../dnssec/application/timings';
import { zoneSigning, type ParentSignal } from '../dnssec/zone-signing';
import { SecretBox } from '../shared/crypto';

/**
 * The DNS role's side of DNSSEC: folds each zone's `dnssec-<zone>` events (the same decider
 * as the write side) and gives the index the keys and window to sign with. Private keys
 * are opened here, once per key, and live only in this thread's memory.
 */
export class ZoneSigner {
  private readonly states = new Map<string, DnssecState>();
  private readonly signers = new Map<string, Signer>();
  private readonly dirty = new Set<string>();
  /** Per zone, what its served keys were at the last signing: a refresh alone leaves it unchanged. */
  private readonly applied = new Map<string, string>();
  /**
   * False while the feeder replays history at start: every signature refresh in the log would
   * re-sign the zone once more, so zones are signed once, at the end of the replay (goLive).
   */
  private live = false;
  /** Null without a secret key (some tests): a signed zone then cannot be served signed. */
  private readonly box: SecretBox | null;

  constructor(
    private readonly index: ZoneIndex,
    secretKey: string | undefined,
    private readonly log: (msg: string, extra?: Record<string, unknown>) => void,
    /** Told when a zone's signed records have changed (signed, re-signed, unsigned): its serial must move. */
    private readonly onSigned: (zone: string) => void = () => undefined,
  ) {
    this.box = secretKey ? new SecretBox(secretKey) : null;
  }

  /** Folds one event; the zone is re-signed at the next flush. Returns the zone's name. */
  apply(event: DnssecEvent): string {
    const zone = event.data.zone;
    this.states.set(zone, dnssecDecider.evolve(this.states.get(zone) ?? dnssecDecider.initialState(), event));
    this.dirty.add(zone);
    return zone;
  }

  /** A deleted zone: an import under the same name starts unsigned. */
  forget(zone: string): void {
    this.states.delete(zone);
    this.dirty.delete(zone);
    this.applied.delete(zone);
    for (const key of [...this.signers.keys()]) if (key.startsWith(`${zone}|`)) this.signers.delete(key);
  }

  /** The replay is done: sign every zone whose DNSSEC state changed during it, once. */
  goLive(): void {
    this.live = true;
    this.flush();
  }

  flush(): void {
    if (!this.live) return;
    for (const zone of this.dirty) {
      if (!this.index.hasZone(zone)) continue;
      try {
        const signing = this.signingOf(zone);
        const keys = this.keysOf(zone);
        // Only the window moved (a signature refresh): re-sign a slice at a time, not the zone in one go.
        const refresh = signing && this.applied.get(zone) === keys && this.index.isSigned(zone);
        // Signed a slice at a time (ZoneIndex.setSigning); the serial moves once it is done.
        void (refresh ? this.index.refreshSigning(zone, signing) : this.index.setSigning(zone, signing)).then(
          () => this.onSigned(zone),
          (e: Error) =>
            this.log(refresh ? 'dnssec: refresh failed' : 'dnssec: zone not signed', { zone, error: e.message }),
        );
        this.applied.set(zone, keys);
      } catch (e) {
        this.log('dnssec: zone not signed', { zone, error: (e as Error).message });
      }
    }
    this.dirty.clear();
  }

  /** What the zone serves apart from the window: key states, CDS, signing state. */
  private keysOf(zone: string): string {
    const s = this.states.get(zone);
    return s ? JSON.stringify([s.state, s.cds, s.keys.map((k) => [k.key_tag, k.state])]) : '';
  }

  private signingOf(zone: string) {
    const s = this.states.get(zone);
    if (!s || s.state === 'unsigned' || !s.window) return null;
    const signing = new Set(signingKeys(s).map((k) => k.key_tag));
    const keys = servedKeys(s).map((k) => ({
      tag: k.key_tag,
      algorithm: k.algorithm,
      flags: k.flags,
      publicKey: Buffer.from(k.public_key, 'base64'),
      sign: signing.has(k.key_tag) ? this.signerOf(zone, k) : null,
    }));
    const parent: ParentSignal =
      s.cds === 'none' ? { kind: 'none' } : s.cds === 'delete' ? { kind: 'delete' } : { kind: 'keys', tags: s.cds };
    return zoneSigning(zone, keys, s.window, parent, KEY_TTL_SECONDS);
  }

  private signerOf(zone: string, key: { key_tag: number; algorithm: number; private_key_sealed: string }): Signer {
    const id = `${zone}|${key.key_tag}|${key.private_key_sealed.slice(0, 16)}`;
    let signer = this.signers.get(id);
    if (!signer) {
      if (!this.box) throw new Error('no secret key to open DNSSEC private keys with');
      if (!isAlgorithm(key.algorithm)) throw new Error(`algorithm ${key.algorithm} is not supported`);
      signer = signerFor(key.algorithm, this.box.open(key.private_key_sealed, KEY_SEAL_PURPOSE));
      this.signers.set(id, signer);
    }
    return signer;
  }
}
