/**
 * Zone ownership (contract §4): a zone may not be equal to, under or above a zone of
 * another account, a dynamic-DNS zone or a name-server host of the service, unless an
 * operator allowed the overlap. Pure rules here; the write side (zone.handlers.ts), the DNS
 * index feeder and the start-up report apply them. See docs/security/zone-ownership.md.
 */
import { Decider, DomainEvent, unreachable } from '../../shared/decider';
import { conflict } from '../../shared/errors';
import { isStrictlyUnder } from '../../shared/fqdn';

export type Relation = 'equal' | 'under' | 'above';

/** How `zone` stands to `other`: the same name, below it, above it, or unrelated (null). */
export function relationOf(zone: string, other: string): Relation | null {
  if (zone === other) return 'equal';
  if (isStrictlyUnder(zone, other)) return 'under';
  if (isStrictlyUnder(other, zone)) return 'above';
  return null;
}

/**
 * The names above `name` that can be zones (two labels or more; a zone needs two), nearest
 * first: `a.b.example.com` → `b.example.com`, `example.com`.
 */
export function zoneAncestors(name: string): string[] {
  const out: string[] = [];
  for (let at = name.indexOf('.'); at >= 0; at = name.indexOf('.', at + 1)) {
    const parent = name.slice(at + 1);
    if (parent.includes('.')) out.push(parent);
  }
  return out;
}

/** Every name strictly above `name`, nearest first, down to the top-level label. */
export function allAncestors(name: string): string[] {
  const out: string[] = [];
  for (let at = name.indexOf('.'); at >= 0; at = name.indexOf('.', at + 1)) out.push(name.slice(at + 1));
  return out;
}

export type ConflictKind = 'zone' | 'ddns_zone' | 'nameserver';

/** What a zone conflicts with: another account's zone, a dynamic-DNS zone or a name-server host. */
export interface OwnershipConflict {
  zone: string;
  account_id: number | null;
  relation: Relation;
  with: { kind: ConflictKind; name: string; account_id: number | null };
}

export interface ServiceNames {
  ddnsZones: readonly string[];
  nameservers: readonly string[];
}

/** Conflicts of `zone` with the service's own names (DDNS_ZONES, NAMESERVERS): no operator data involved. */
export function serviceConflicts(zone: string, accountId: number | null, names: ServiceNames): OwnershipConflict[] {
  const out: OwnershipConflict[] = [];
  const add = (kind: ConflictKind, name: string) => {
    const relation = relationOf(zone, name);
    if (relation) out.push({ zone, account_id: accountId, relation, with: { kind, name, account_id: null } });
  };
  for (const z of names.ddnsZones) add('ddns_zone', z);
  for (const n of names.nameservers) add('nameserver', n);
  return out;
}

/**
 * Conflicts with the service's names an operator's allowance lifts: all but a zone that is a
 * dynamic-DNS zone itself (the service serves that zone; an account's zone of the same name
 * would replace it, and deleting it would take the service's zone down).
 */
export function unallowedServiceConflicts(
  zone: string,
  accountId: number | null,
  names: ServiceNames,
  allowances: OverlapAllowances,
): OwnershipConflict[] {
  const allowed = allowances.has(zone, accountId);
  return serviceConflicts(zone, accountId, names).filter(
    (c) => !allowed || (c.with.kind === 'ddns_zone' && c.relation === 'equal'),
  );
}

const RELATION_WORDS: Record<Relation, string> = { equal: 'is', under: 'is under', above: 'is above' };
const KIND_WORDS: Record<ConflictKind, string> = {
  zone: 'a zone of another account',
  ddns_zone: "the service's dynamic-DNS zone",
  nameserver: "the service's name server",
};

/** The 409 message: names the conflict ("mail.example.com is under example.com, a zone of another account"). */
export function conflictMessage(c: OwnershipConflict): string {
  if (c.with.kind === 'zone')
    return `${c.zone} ${RELATION_WORDS[c.relation]} ${c.relation === 'equal' ? '' : `${c.with.name}, `}${KIND_WORDS.zone}`;
  return `${c.zone} ${RELATION_WORDS[c.relation]} ${KIND_WORDS[c.with.kind]} ${c.with.name}`;
}

export const zoneConflict = (c: OwnershipConflict) => conflict('zone_conflict', conflictMessage(c));

// --- Operator allowances ------------------------------------------------------------------

/** All allowances live in one stream: operators write them rarely, and every reader wants all. */
export const OVERLAP_ALLOWANCES_STREAM = 'zone-overlap-allowances';
export type ZoneOverlapAllowed = DomainEvent<'ZoneOverlapAllowed', { zone: string; account_id: number; at: string }>;
export const ZONE_OWNERSHIP_EVENT_TYPES: readonly string[] = ['ZoneOverlapAllowed'];

/** (zone, account) pairs an operator allowed to overlap others. */
export class OverlapAllowances {
  private readonly pairs = new Set<string>();

  add(zone: string, accountId: number): void {
    this.pairs.add(`${zone}|${accountId}`);
  }

  has(zone: string, accountId: number | null): boolean {
    return accountId !== null && this.pairs.has(`${zone}|${accountId}`);
  }

  /** An overlap of two accounts' zones is allowed when either side was allowed to overlap. */
  pairAllowed(a: { zone: string; account_id: number | null }, b: { zone: string; account_id: number | null }): boolean {
    return this.has(a.zone, a.account_id) || this.has(b.zone, b.account_id);
  }

  static of(events: Array<{ type: string; data: unknown }>): OverlapAllowances {
    const allowances = new OverlapAllowances();
    for (const e of events)
      if (e.type === 'ZoneOverlapAllowed')
        allowances.add((e.data as ZoneOverlapAllowed['data']).zone, (e.data as ZoneOverlapAllowed['data']).account_id);
    return allowances;
  }
}

// --- Existing data: the start-up report -----------------------------------------------------

export interface ZoneHolding {
  zone: string;
  account_id: number;
  /** Import order: the earlier zone is the legitimate one of a conflicting pair. */
  created_at: string;
}

/**
 * Every pair of existing data that breaks the rules, each reported once against the earlier
 * zone (or the service name): O(zones × labels), by walking each zone's ancestors.
 */
export function findOwnershipConflicts(
  zones: readonly ZoneHolding[],
  names: ServiceNames,
  allowances: OverlapAllowances,
): OwnershipConflict[] {
  const byName = new Map(zones.map((z) => [z.zone, z]));
  const out: OwnershipConflict[] = [];
  for (const z of [...zones].sort((a, b) => a.zone.localeCompare(b.zone))) {
    out.push(...unallowedServiceConflicts(z.zone, z.account_id, names, allowances));
    for (const name of zoneAncestors(z.zone)) {
      const above = byName.get(name);
      if (!above || above.account_id === z.account_id || allowances.pairAllowed(z, above)) continue;
      // The later of the two is the one in conflict with the earlier one.
      const [later, earlier] = above.created_at <= z.created_at ? [z, above] : [above, z];
      out.push({
        zone: later.zone,
        account_id: later.account_id,
        relation: later === z ? 'under' : 'above',
        with: { kind: 'zone', name: earlier.zone, account_id: earlier.account_id },
      });
    }
  }
  return out;
}

// --- Write side: the claim tree ------------------------------------------------------------

/**
 * `zonetree-<name>` holds a claim for every zone at or below `name`: a zone writes its claim
 * into its own tree stream and into the tree stream of each name above it. Two zones where
 * one is at or above the other therefore both write to the upper one's tree stream, with the
 * revision they read: the event store lets only one of them append on what it read, the other
 * re-reads and sees the first (docs/security/zone-ownership.md).
 */
export const zoneTreeStream = (name: string) => `zonetree-${name}`;

export interface TreeClaim {
  zone: string;
  account_id: number;
  at: string;
}

export type ZoneTreeEvent =
  | DomainEvent<'ZoneTreeClaimed', { tree: string; zone: string; zone_id: string; account_id: number; at: string }>
  | DomainEvent<'ZoneTreeReleased', { tree: string; zone_id: string }>;

export type ZoneTreeState = Map<string, TreeClaim>;

export type ZoneTreeCommand =
  /** `settled`: ids of claims the caller found dead (zone deleted, import never completed) or allowed. */
  | {
      type: 'Claim';
      tree: string;
      zone: string;
      zoneId: string;
      accountId: number;
      settled: readonly string[];
      at: string;
    }
  | { type: 'Release'; tree: string; zoneId: string };

/** Claims in a tree stream that stand against `zone` of `accountId`; `tree` is the zone or one of its ancestors. */
export function claimsAgainst(
  state: ZoneTreeState,
  tree: string,
  zone: string,
  accountId: number,
): Array<[string, TreeClaim]> {
  return [...state].filter(([, c]) => c.account_id !== accountId && (tree === zone ? true : c.zone === tree));
}

export const zoneTreeDecider: Decider<ZoneTreeState, ZoneTreeCommand, ZoneTreeEvent> = {
  initialState: () => new Map(),
  evolve(state, event) {
    const next = new Map(state);
    switch (event.type) {
      case 'ZoneTreeClaimed':
        next.set(event.data.zone_id, { zone: event.data.zone, account_id: event.data.account_id, at: event.data.at });
        return next;
      case 'ZoneTreeReleased':
        next.delete(event.data.zone_id);
        return next;
      default:
        return unreachable(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'Claim': {
        if (state.has(command.zoneId)) return [];
        const against = claimsAgainst(state, command.tree, command.zone, command.accountId).find(
          ([id]) => !command.settled.includes(id),
        );
        if (against) {
          const [, c] = against;
          throw zoneConflict({
            zone: command.zone,
            account_id: command.accountId,
            relation: relationOf(command.zone, c.zone) ?? 'equal',
            with: { kind: 'zone', name: c.zone, account_id: c.account_id },
          });
        }
        const { tree, zone, zoneId, accountId, at } = command;
        return [{ type: 'ZoneTreeClaimed', data: { tree, zone, zone_id: zoneId, account_id: accountId, at } }];
      }
      case 'Release':
        return state.has(command.zoneId)
          ? [{ type: 'ZoneTreeReleased', data: { tree: command.tree, zone_id: command.zoneId } }]
          : [];
      default:
        return unreachable(command);
    }
  },
};
