import type { AuditEntry } from '../../api/types';

/**
 * The audit log in words (issue 27): who acted by name rather than `user:1`, and what a
 * change changed as before → after rather than the event's JSON. The "before" comes from the
 * next older entry about the same thing among those loaded; without one, only "after" is said.
 */
export interface ActorContext {
  accountId: number;
  username: string;
  /** API key id → name (the account's active keys). */
  keys: ReadonlyMap<string, string>;
}

export function actorName(actor: string | null, ctx: ActorContext): string {
  if (!actor) return '—';
  const [kind, ...rest] = actor.split(':');
  const id = rest.join(':');
  switch (kind) {
    case 'user':
      return Number(id) === ctx.accountId ? `You (${ctx.username})` : `User ${id}`;
    case 'key': {
      const name = ctx.keys.get(id);
      return name ? `API key “${name}”` : 'An API key (since revoked)';
    }
    case 'ddns':
      return `A DDNS client (${actorName(id, ctx)
        .replace(/^You \(/, 'signed in as ')
        .replace(/\)$/, '')})`;
    case 'system':
      return id ? `The service (${id})` : 'The service';
    case 'operator':
    case 'admin':
      return 'An operator';
    case 'report':
      return `Report intake (${id})`;
    default:
      return actor;
  }
}

export interface Change {
  /** What changed: `www A`, `IPv4`, `Plan`. */
  what: string;
  before: string | null;
  after: string | null;
}

interface RRsetData {
  subname: string;
  type: string;
  ttl: number;
  records: string[];
}

const rrsetKey = (r: { subname: string; type: string }) => `${r.subname || '@'} ${r.type}`;
const rrsetText = (r: RRsetData | undefined) =>
  r && r.records.length ? `${r.records.join(', ')} (TTL ${r.ttl} s)` : null;
const zoneOf = (e: AuditEntry) => (e.data.name ?? e.data.zone) as string | undefined;

/** The RRset `key` of the zone as the older entries (newest first) left it, if they say. */
function rrsetBefore(zone: string, key: string, older: readonly AuditEntry[]): RRsetData | undefined | null {
  for (const e of older) {
    if (zoneOf(e) !== zone) continue;
    const sets = (
      e.type === 'ZoneRRsetsChanged' ? e.data.rrsets : e.type === 'ZoneImported' ? e.data.rrsets : undefined
    ) as RRsetData[] | undefined;
    const found = sets?.find((r) => rrsetKey(r) === key);
    if (found) return found;
    // An import states the whole zone: a set it lacks did not exist.
    if (e.type === 'ZoneImported') return undefined;
  }
  return null; // not among the loaded entries
}

interface Addresses {
  ipv4: string | null;
  ipv6: string | null;
}

function addressesBefore(domainId: unknown, older: readonly AuditEntry[]): Addresses | null {
  for (const e of older) {
    if (e.data.domain_id !== domainId) continue;
    if (e.type === 'DomainAddressesChanged') return e.data.addresses as Addresses;
    if (e.type === 'DomainCreated')
      return {
        ipv4: e.data.record_type === 'A' ? (e.data.record_ip as string) : null,
        ipv6: e.data.record_type === 'AAAA' ? (e.data.record_ip as string) : null,
      };
  }
  return null;
}

/** What the entry changed, as before → after; empty when the entry is not a change of values. */
export function changesOf(entry: AuditEntry, older: readonly AuditEntry[]): Change[] {
  const d = entry.data;
  switch (entry.type) {
    case 'ZoneRRsetsChanged': {
      const zone = zoneOf(entry)!;
      return (d.rrsets as RRsetData[]).map((r) => {
        const before = rrsetBefore(zone, rrsetKey(r), older);
        return {
          what: rrsetKey(r),
          before: before === null ? null : (rrsetText(before) ?? 'none'),
          after: rrsetText(r) ?? 'removed',
        };
      });
    }
    case 'DomainAddressesChanged': {
      const after = d.addresses as Addresses;
      const before = addressesBefore(d.domain_id, older);
      return (['ipv4', 'ipv6'] as const)
        .filter((f) => !before || before[f] !== after[f])
        .map((f) => ({
          what: f === 'ipv4' ? 'IPv4' : 'IPv6',
          before: before ? (before[f] ?? 'none') : null,
          after: after[f] ?? 'removed',
        }));
    }
    case 'DomainTtlChanged': {
      const prior = older.find(
        (e) => e.data.domain_id === d.domain_id && (e.type === 'DomainTtlChanged' || e.type === 'DomainCreated'),
      );
      return [{ what: 'TTL', before: prior ? `${String(prior.data.ttl)} s` : null, after: `${String(d.ttl)} s` }];
    }
    case 'SubscriptionChanged': {
      const prior = older.find((e) => e.type === 'SubscriptionChanged' || e.type === 'AccountRegistered');
      return [{ what: 'Plan', before: prior ? String(prior.data.plan) : null, after: String(d.plan) }];
    }
    default:
      return [];
  }
}
