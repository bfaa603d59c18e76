import {
  formatRecord,
  hostnameProblem,
  isSupportedType,
  parseRecord,
  recordWireSize,
  SUPPORTED_TYPES,
} from '../../dns-server';
import { validationFailed } from '../../shared/errors';
import { RRset, rrsetKey } from './zone.events';

export const MIN_TTL = 60;
export const MAX_TTL = 86_400;
export const MAX_RECORDS_PER_RRSET = 100;
/**
 * Contract §16: an RRset must fit in one DNS message (65,535 bytes over TCP) with room
 * for the header, the question, a CNAME before it and the OPT record. A bigger one
 * could only be answered truncated, with no data at all.
 */
export const MAX_RRSET_WIRE_BYTES = 60_000;

/** Input shape before validation (from the API or a parsed master file). */
export interface RRsetInput {
  subname: string;
  type: string;
  ttl: number;
  records: string[];
}

/**
 * Validates one RRset and returns it in canonical form: lowercase subname, uppercase
 * type, each record parsed and re-printed by the DNS server's own rdata code, so what is
 * stored is exactly what will be served. `field` prefixes messages (contract §1: the
 * message names the field).
 */
export function canonicalRRset(zone: string, input: RRsetInput, field: string): RRset {
  const subname = input.subname.trim().toLowerCase().replace(/\.$/, '');
  const owner = subname === '' ? zone : `${subname}.${zone}`;
  const problem = hostnameProblem(owner, { wildcard: true });
  if (problem) throw validationFailed(`${field}.subname: ${problem}`);
  const type = input.type.toUpperCase();
  if (!isSupportedType(type)) throw validationFailed(`${field}.type: must be one of ${SUPPORTED_TYPES.join(', ')}`);
  if (!Number.isInteger(input.ttl) || input.ttl < MIN_TTL || input.ttl > MAX_TTL) {
    throw validationFailed(`${field}.ttl: must be an integer from ${MIN_TTL} to ${MAX_TTL}`);
  }
  if (input.records.length > MAX_RECORDS_PER_RRSET)
    throw validationFailed(`${field}.records: at most ${MAX_RECORDS_PER_RRSET} records`);
  if (subname === '' && type === 'NS' && input.records.length > 0) {
    throw validationFailed(`${field}: the apex NS records come from the service's name servers and cannot be set`);
  }
  if (subname === '' && type === 'CNAME' && input.records.length > 0)
    throw validationFailed(`${field}: a CNAME cannot be at the zone apex`);
  // The DS of the zone itself lives in its parent; a zone holds DS only for its delegated children.
  if (subname === '' && type === 'DS' && input.records.length > 0)
    throw validationFailed(`${field}: a DS record cannot be at the zone apex (it belongs in the parent zone)`);
  const records = new Set<string>();
  let wireBytes = 0;
  input.records.forEach((text, i) => {
    let canonical: string;
    let data: ReturnType<typeof parseRecord>;
    try {
      data = parseRecord(type, text);
      canonical = formatRecord(type, data);
    } catch (e) {
      throw validationFailed(`${field}.records[${i}]: ${(e as Error).message}`);
    }
    if (records.has(canonical)) return;
    records.add(canonical);
    try {
      wireBytes += recordWireSize(owner, type, data);
    } catch (e) {
      throw validationFailed(`${field}.records[${i}]: cannot be served: ${(e as Error).message}`);
    }
  });
  if (type === 'CNAME' && records.size > 1)
    throw validationFailed(`${field}.records: a CNAME RRset holds exactly one record`);
  if (wireBytes > MAX_RRSET_WIRE_BYTES) {
    throw validationFailed(
      `${field}.records: the RRset is ${wireBytes.toLocaleString('en-US')} bytes in DNS wire format; at most ` +
        `${MAX_RRSET_WIRE_BYTES.toLocaleString('en-US')} fit in a DNS message`,
    );
  }
  return { subname, type, ttl: input.ttl, records: [...records] };
}

/**
 * Applies canonical changes to the current RRsets (by subname+type) and checks the
 * result as a whole: one change per RRset, and no CNAME beside other data at a name.
 */
export function applyRRsets(current: ReadonlyMap<string, RRset>, changes: RRset[]): Map<string, RRset> {
  const next = new Map(current);
  const seen = new Set<string>();
  for (const change of changes) {
    const key = rrsetKey(change);
    if (seen.has(key)) throw validationFailed(`records: ${change.type} at "${change.subname}" appears more than once`);
    seen.add(key);
    if (change.records.length === 0) next.delete(key);
    else next.set(key, change);
  }
  const typesAt = new Map<string, string[]>();
  for (const r of next.values()) typesAt.set(r.subname, [...(typesAt.get(r.subname) ?? []), r.type]);
  for (const [subname, types] of typesAt) {
    if (types.includes('DS') && !types.includes('NS')) {
      throw validationFailed(`records: "${subname}" has a DS but no NS: DS records belong at a delegation`);
    }
    if (types.includes('CNAME') && types.length > 1) {
      throw validationFailed(
        `records: "${subname || '@'}" has a CNAME, which cannot coexist with ${types.filter((t) => t !== 'CNAME').join(', ')}`,
      );
    }
  }
  return next;
}
