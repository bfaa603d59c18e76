/**
 * An RFC 2136 UPDATE message read into the zone's terms (zones/domain/dns-update.ts):
 * names relative to the zone, record data in canonical presentation format. Malformed
 * sections answer FORMERR, names outside the zone NOTZONE (§3.2, §3.4.1.3), types the
 * service does not serve REFUSED.
 */
import * as dnsPacket from 'dns-packet';
import { formatRecord, isSupportedType } from '../dns-server';
import { isAtOrBelow, wireKey } from '../dns-server/names';
import { QTYPE } from '../dns-server/wire';
import { DnsUpdate, Prerequisite, UPDATE_RCODE, UpdateOperation } from '../zones/domain/dns-update';
import { CLASS, WireMessage, WireRR } from './message';
import { TSIG_TYPE } from './tsig';

/** Updates in one message: bounds the work one signed message can ask for. */
export const MAX_UPDATE_RECORDS = 1000;

export class UpdateRejected extends Error {
  constructor(
    readonly rcode: number,
    reason: string,
  ) {
    super(reason);
  }
}

const TYPE_NAMES = new Map<number, string>([...Object.entries(QTYPE)].map(([name, n]) => [n, name]));
const TYPE_ANY = 255;

export function parseUpdate(msg: Buffer, m: WireMessage, zone: string): DnsUpdate {
  const apex = wireKey(zone);
  const relative = (rr: WireRR): string => {
    if (!isAtOrBelow(rr.key, apex)) throw new UpdateRejected(UPDATE_RCODE.NOTZONE, `${rr.name} is outside ${zone}`);
    return rr.name === zone ? '' : rr.name.slice(0, -(zone.length + 1));
  };
  const typeName = (rr: WireRR, prerequisite = false): string => {
    const name = TYPE_NAMES.get(rr.type);
    // Prerequisites may name the apex SOA ("the zone exists"), which is not an updatable type.
    if (prerequisite && name === 'SOA') return name;
    if (!name || !isSupportedType(name))
      throw new UpdateRejected(UPDATE_RCODE.REFUSED, `type ${name ?? rr.type} is not served`);
    return name;
  };
  const text = (rr: WireRR, type: string): string => {
    try {
      const codec = (dnsPacket as unknown as Record<string, { decode(buf: Buffer, offset: number): unknown }>)[
        type.toLowerCase()
      ];
      return formatRecord(type, codec.decode(msg, rr.rdlengthAt) as string);
    } catch {
      throw new UpdateRejected(UPDATE_RCODE.FORMERR, `malformed ${type} data`);
    }
  };
  if (m.answers.length + m.authorities.length > MAX_UPDATE_RECORDS)
    throw new UpdateRejected(UPDATE_RCODE.REFUSED, `more than ${MAX_UPDATE_RECORDS} records`);

  const prerequisites: Prerequisite[] = [];
  for (const rr of m.answers) {
    if (rr.ttl !== 0) throw new UpdateRejected(UPDATE_RCODE.FORMERR, 'a prerequisite with a TTL');
    const name = relative(rr);
    const empty = rr.rdata.length === 0;
    if (rr.class === CLASS.ANY && empty) {
      prerequisites.push(
        rr.type === TYPE_ANY ? { kind: 'name-in-use', name } : { kind: 'rrset-exists', name, type: typeName(rr, true) },
      );
    } else if (rr.class === CLASS.NONE && empty) {
      prerequisites.push(
        rr.type === TYPE_ANY
          ? { kind: 'name-not-in-use', name }
          : { kind: 'rrset-absent', name, type: typeName(rr, true) },
      );
    } else if (rr.class === CLASS.IN) {
      const type = typeName(rr);
      prerequisites.push({ kind: 'rrset-exists-value', name, type, records: [text(rr, type)] });
    } else {
      throw new UpdateRejected(UPDATE_RCODE.FORMERR, 'a prerequisite of an unknown form');
    }
  }

  const updates: UpdateOperation[] = [];
  for (const rr of m.authorities) {
    const name = relative(rr);
    const empty = rr.rdata.length === 0;
    if (rr.class === CLASS.IN) {
      if (rr.type === TYPE_ANY || rr.type === QTYPE.AXFR || rr.type === QTYPE.IXFR || rr.type === TSIG_TYPE)
        throw new UpdateRejected(UPDATE_RCODE.FORMERR, 'a meta type in an add');
      const type = typeName(rr);
      updates.push({ kind: 'add', name, type, ttl: rr.ttl, record: text(rr, type) });
    } else if (rr.class === CLASS.ANY && empty && rr.ttl === 0) {
      updates.push(
        rr.type === TYPE_ANY ? { kind: 'delete-name', name } : { kind: 'delete-rrset', name, type: typeName(rr) },
      );
    } else if (rr.class === CLASS.NONE && rr.ttl === 0 && !empty) {
      const type = typeName(rr);
      updates.push({ kind: 'delete-record', name, type, record: text(rr, type) });
    } else {
      throw new UpdateRejected(UPDATE_RCODE.FORMERR, 'an update of an unknown form');
    }
  }
  return { prerequisites, updates };
}
