/**
 * Who may transfer which zone, who gets its NOTIFYs, and which keys sign updates (contract
 * §18), as the DNS role knows it: folded from the events (keys, secondaries, zones) like
 * the zone index, plus the operator's SECONDARIES and SECONDARY_TSIG_KEY. Secrets are
 * opened with the service secret as the key events arrive and kept only in memory.
 */
import type { RecordedEvent } from '../eventstore/event-store.port';
import {
  SECONDARY_EVENT_TYPES,
  SecondaryEvent,
  TSIG_KEY_EVENT_TYPES,
  TSIG_SECRET_PURPOSE,
  TsigKeyEvent,
  TsigKeyPurpose,
  UpdateAllow,
} from '../transfers/domain/transfer.events';
import { ZoneEvent } from '../zones/domain/zone.events';
import type { TsigKey } from './tsig';

export interface Endpoint {
  address: string;
  port: number;
}

export interface AclKey extends TsigKey {
  purpose: TsigKeyPurpose | 'operator';
  zoneIds: Set<string>;
  allow: UpdateAllow[];
}

export interface NotifyTarget extends Endpoint {
  key: TsigKey | null;
}

export interface TransferAclOptions {
  operatorSecondaries: Endpoint[];
  operatorKey: TsigKey | null;
  /** Opens a sealed secret (SecretBox.open with the service secret). */
  open: (sealed: string, purpose: string) => Buffer;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

export const ACL_EVENT_TYPES = new Set<string>([
  ...TSIG_KEY_EVENT_TYPES,
  ...SECONDARY_EVENT_TYPES,
  'ZoneImported',
  'ZoneDeleted',
]);

/** `1.2.3.4`, `1.2.3.4:5353`, `[2001:db8::1]:5353` → endpoint (port 53 by default). */
export function parseEndpoint(text: string): Endpoint {
  const t = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  if (bracketed) return { address: bracketed[1].toLowerCase(), port: Number(bracketed[2] ?? 53) };
  const hostPort = /^([^:]+):(\d+)$/.exec(t);
  if (hostPort) return { address: hostPort[1], port: Number(hostPort[2]) };
  return { address: t.toLowerCase(), port: 53 };
}

/** Node reports IPv4 clients of a dual-stack socket as ::ffff:a.b.c.d. */
export const plainAddress = (ip: string) =>
  ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip.toLowerCase();

export class TransferAcl {
  private readonly keys = new Map<string, AclKey>();
  private readonly keyIds = new Map<string, string>();
  private readonly zoneNames = new Map<string, string>();
  private readonly zoneIds = new Map<string, string>();
  private readonly secondaries = new Map<string, Map<string, Endpoint & { key: string }>>();

  constructor(private readonly options: TransferAclOptions) {
    const op = options.operatorKey;
    if (op) this.keys.set(op.name, { ...op, purpose: 'operator', zoneIds: new Set(), allow: [] });
  }

  /** A key by its (canonical) name, any purpose: what a TSIG record names. */
  key(name: string): AclKey | undefined {
    return this.keys.get(name);
  }

  /** Whether `keyName` (already verified) from `ip` may transfer `zone`. */
  mayTransfer(zone: string, keyName: string, ip: string): boolean {
    const from = plainAddress(ip);
    const op = this.options.operatorKey;
    if (op && keyName === op.name && this.options.operatorSecondaries.some((s) => s.address === from)) return true;
    const key = this.keys.get(keyName);
    const zoneId = this.zoneIds.get(zone);
    if (!key || key.purpose !== 'transfer' || !zoneId || !key.zoneIds.has(zoneId)) return false;
    return [...(this.secondaries.get(zoneId)?.values() ?? [])].some((s) => s.address === from && s.key === keyName);
  }

  /**
   * Whether anyone may ask for the zone (the IXFR journal keeps history only for those): the
   * operator's secondaries take every zone, an account's only the zones it added them to.
   */
  transferable(zone: string): boolean {
    if (this.options.operatorSecondaries.length > 0) return true;
    const zoneId = this.zoneIds.get(zone);
    return zoneId !== undefined && (this.secondaries.get(zoneId)?.size ?? 0) > 0;
  }

  /** The update key `keyName` when it covers `zone` (names and types are checked per record by the caller). */
  updateKey(zone: string, keyName: string): AclKey | undefined {
    const key = this.keys.get(keyName);
    const zoneId = this.zoneIds.get(zone);
    return key && key.purpose === 'update' && zoneId && key.zoneIds.has(zoneId) ? key : undefined;
  }

  /** Everyone to NOTIFY about `zone`: the operator's secondaries, then the zone's own. */
  notifyTargets(zone: string): NotifyTarget[] {
    const targets: NotifyTarget[] = this.options.operatorSecondaries.map((s) => ({
      ...s,
      key: this.options.operatorKey,
    }));
    const zoneId = this.zoneIds.get(zone);
    for (const s of (zoneId && this.secondaries.get(zoneId)?.values()) || []) {
      targets.push({ address: s.address, port: s.port, key: this.keys.get(s.key) ?? null });
    }
    return targets;
  }

  apply(event: RecordedEvent): void {
    const e = { type: event.type, data: event.data } as TsigKeyEvent | SecondaryEvent | ZoneEvent;
    switch (e.type) {
      case 'ZoneImported':
        this.zoneNames.set(e.data.zone_id, e.data.name);
        this.zoneIds.set(e.data.name, e.data.zone_id);
        return;
      case 'ZoneDeleted':
        this.zoneNames.delete(e.data.zone_id);
        if (this.zoneIds.get(e.data.name) === e.data.zone_id) this.zoneIds.delete(e.data.name);
        this.secondaries.delete(e.data.zone_id);
        return;
      case 'TsigKeyCreated': {
        const d = e.data;
        try {
          const secret = this.options.open(d.secret_sealed, TSIG_SECRET_PURPOSE);
          this.keys.set(d.name, {
            name: d.name,
            algorithm: d.algorithm,
            secret,
            purpose: d.purpose,
            zoneIds: new Set(d.zones.map((z) => z.zone_id)),
            allow: d.allow,
          });
          this.keyIds.set(d.key_id, d.name);
        } catch (err) {
          // A secret sealed under another SECRET_KEY: the key cannot verify anything here.
          this.options.log?.('tsig key not usable', { key: d.name, error: (err as Error).message });
        }
        return;
      }
      case 'TsigKeyDeleted': {
        const name = this.keyIds.get(e.data.key_id);
        if (name && this.keys.get(name)?.purpose !== 'operator') this.keys.delete(name);
        this.keyIds.delete(e.data.key_id);
        return;
      }
      case 'SecondaryAdded': {
        const d = e.data;
        const list = this.secondaries.get(d.zone_id) ?? new Map();
        list.set(d.secondary_id, { address: d.address, port: d.port, key: d.tsig_key });
        this.secondaries.set(d.zone_id, list);
        return;
      }
      case 'SecondaryRemoved':
        this.secondaries.get(e.data.zone_id)?.delete(e.data.secondary_id);
        return;
      default:
        return;
    }
  }
}
