import { Injectable } from '@nestjs/common';
import { EventStreams } from '../../eventstore/event-streams';
import { dnssecDecider, DnssecState, servedKeys } from '../domain/dnssec.decider';
import { dnssecStream } from '../domain/dnssec.events';
import { CSK_FLAGS, dnskeyRdata, dnskeyText, dsRdata, dsText } from '../keys';
import { KEY_TTL_SECONDS } from './timings';
import { DnssecTarget } from './dnssec.commands';

export const ddnsTarget = (zone: string): DnssecTarget => ({ zone, zoneId: `ddns:${zone}`, accountId: null });

/** A zone's DNSSEC state, from its `dnssec-<zone>` stream; null when signing never began for this zone id. */
@Injectable()
export class DnssecQueries {
  constructor(private readonly streams: EventStreams) {}

  async state(target: DnssecTarget): Promise<DnssecState | null> {
    const { state } = await this.streams.loadState(dnssecStream(target.zone), dnssecDecider);
    return state.zoneId === target.zoneId ? state : null;
  }
}

const rdataOf = (k: { flags: number; algorithm: number; public_key: string }) =>
  dnskeyRdata(k.flags, k.algorithm, Buffer.from(k.public_key, 'base64'));

/**
 * The dnssec object of contract §17. `ds` is what the parent should hold: the active
 * secure-entry-point keys, or during a rollover, once the new key signs, only the new one
 * (what the CDS asks for). While unsigning the parent should hold none.
 */
export function dnssecView(zone: string, found: DnssecState | null) {
  const s = found ?? dnssecDecider.initialState();
  const r = s.rollover;
  const forParent =
    s.state === 'unsigned' || s.state === 'unsigning'
      ? []
      : r && r.phase !== 'publishing'
        ? s.keys.filter((k) => k.key_tag === r.newTag)
        : s.keys.filter((k) => k.state === 'active' && (k.flags & 1) === (CSK_FLAGS & 1));
  return {
    zone,
    enabled: s.state === 'signed' || s.state === 'rolling',
    state: s.state,
    algorithm: s.algorithm,
    keys: s.keys.map((k) => ({
      key_tag: k.key_tag,
      algorithm: k.algorithm,
      flags: k.flags,
      role: k.role,
      state: k.state,
      created_at: k.created_at,
    })),
    ds: forParent.map((k) => dsText(zone, KEY_TTL_SECONDS, dsRdata(zone, rdataOf(k)))),
    dnskey: s.state === 'unsigned' ? [] : servedKeys(s).map((k) => dnskeyText(zone, KEY_TTL_SECONDS, rdataOf(k))),
    cds_published: s.cds !== 'none',
    next_rollover_at: null,
  };
}
