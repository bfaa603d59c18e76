import { Decider, unreachable } from '../../shared/decider';
import { conflict, notFound } from '../../shared/errors';
import { checkRecordLimit } from './record-limit';
import { DnsUpdate, DnsUpdateRefused, planDnsUpdate, UPDATE_RCODE, UpdatePermission } from './dns-update';
import { applyRRsets, canonicalRRset, MIN_TTL, RRsetInput } from './rrsets';
import { RRset, rrsetKey, ZoneEvent } from './zone.events';

export interface ZoneState {
  status: 'none' | 'pending_verification' | 'verified' | 'deleted';
  id: string;
  accountId: number;
  name: string;
  rrsets: Map<string, RRset>;
}

/**
 * `recordLimit` is the plan's records-per-zone figure (contract §16), read by the handler;
 * absent, nothing is counted (the ACME challenge records: see record-limit.ts).
 */
export type ZoneCommand =
  | {
      type: 'ImportZone';
      zoneId: string;
      accountId: number;
      name: string;
      token: string;
      nameservers: string[];
      rrsets: RRsetInput[];
      recordLimit?: number;
      at: string;
    }
  | { type: 'UpsertRRsets'; accountId: number; rrsets: RRsetInput[]; recordLimit?: number; at: string }
  /** Adds values to RRsets, keeping the values already there (challenge records the service publishes itself). */
  | { type: 'AddRecordValues'; accountId: number; rrtype: string; ttl: number; sets: RecordValues[]; at: string }
  | { type: 'RemoveRecordValues'; accountId: number; rrtype: string; sets: RecordValues[]; at: string }
  | { type: 'MarkVerified'; accountId: number; method: 'ns' | 'txt'; at: string }
  | { type: 'DeleteZone'; accountId: number; at: string }
  /**
   * Brings the records back to exactly `rrsets` (the zone's records at an earlier instant:
   * history restore). Decided as an upsert of the difference, so the record rules, the plan's
   * record limit and the "only what differs" rule are the upsert's; nothing differs, no event.
   */
  | { type: 'RestoreRRsets'; accountId: number; rrsets: RRset[]; recordLimit?: number; at: string }
  | { type: 'SetManagedTxt'; accountId: number; changes: ManagedTxt[]; ttl: number; recordLimit?: number; at: string }
  /** RFC 2136 UPDATE (contract §18): all or nothing; refusals throw DnsUpdateRefused with the RCODE. */
  | {
      type: 'ApplyDnsUpdate';
      update: DnsUpdate;
      allow: UpdatePermission[];
      hosts?: RRset[];
      recordLimit?: number;
      at: string;
    };

/**
 * TXT data another context manages at one name (email authentication: `v=spf1` at the apex,
 * `v=DMARC1` at `_dmarc`, ...): the strings of that family are replaced, the owner's other
 * TXT strings at the name are kept. `records` are TXT presentation strings; [] removes the family.
 */
export interface ManagedTxt {
  subname: string;
  family: string;
  records: string[];
}

/** Whether a canonical TXT record (quoted strings) belongs to a family such as `v=spf1`. */
export const txtInFamily = (record: string, family: string): boolean => {
  // The version tag always opens the first character-string (RFC 7208 §4.5, RFC 7489 §6.4, ...).
  const text = (/^"((?:[^"\\]|\\.)*)"/.exec(record)?.[1] ?? '').toLowerCase();
  const tag = family.toLowerCase();
  return text === tag || text.startsWith(`${tag};`) || text.startsWith(`${tag} `);
};

export interface RecordValues {
  subname: string;
  values: string[];
}

export const ZONE_NOT_FOUND = 'Zone not found';

const live = (s: ZoneState) => s.status === 'pending_verification' || s.status === 'verified';

function requireOwned(state: ZoneState, accountId: number): void {
  if (!live(state) || state.accountId !== accountId) throw notFound(ZONE_NOT_FOUND);
}

const canonicalAll = (zone: string, inputs: RRsetInput[]) =>
  inputs.map((r, i) => canonicalRRset(zone, r, `records[${i}]`));

export const zoneDecider: Decider<ZoneState, ZoneCommand, ZoneEvent> = {
  initialState: () => ({ status: 'none', id: '', accountId: 0, name: '', rrsets: new Map() }),

  evolve(state, event) {
    switch (event.type) {
      case 'ZoneImported': {
        const d = event.data;
        return {
          status: 'pending_verification',
          id: d.zone_id,
          accountId: d.account_id,
          name: d.name,
          rrsets: new Map(d.rrsets.map((r) => [rrsetKey(r), r])),
        };
      }
      case 'ZoneRRsetsChanged':
        return { ...state, rrsets: applyRRsets(state.rrsets, event.data.rrsets) };
      case 'ZoneVerified':
        return { ...state, status: 'verified' };
      case 'ZoneDeleted':
        return { ...state, status: 'deleted' };
      default:
        return unreachable(event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'ImportZone': {
        if (state.status !== 'none') throw conflict('zone_taken', `${command.name} is already imported`);
        // Imported RRsets are named by owner and type: the zone file has no `records` field.
        const canonical = command.rrsets.map((r) =>
          canonicalRRset(command.name, r, `zone_file (${r.type.toUpperCase()} at ${r.subname || '@'})`),
        );
        const rrsets = [...applyRRsets(new Map(), canonical).values()];
        checkRecordLimit([], rrsets, command.recordLimit);
        return [
          {
            type: 'ZoneImported',
            data: {
              zone_id: command.zoneId,
              account_id: command.accountId,
              name: command.name,
              verification_token: command.token,
              nameservers: command.nameservers,
              rrsets,
              created_at: command.at,
            },
          },
        ];
      }
      case 'UpsertRRsets': {
        requireOwned(state, command.accountId);
        const changes = canonicalAll(state.name, command.rrsets);
        const next = applyRRsets(state.rrsets, changes); // validates the result as a whole
        checkRecordLimit(state.rrsets.values(), next.values(), command.recordLimit);
        // Only what differs from the stored state is an event; an identical PUT changes nothing.
        const effective = changes.filter((c) => {
          const now = state.rrsets.get(rrsetKey(c));
          return c.records.length === 0 ? now !== undefined : JSON.stringify(now) !== JSON.stringify(c);
        });
        if (effective.length === 0) return [];
        return [
          {
            type: 'ZoneRRsetsChanged',
            data: {
              zone_id: state.id,
              account_id: state.accountId,
              name: state.name,
              rrsets: effective,
              at: command.at,
            },
          },
        ];
      }
      case 'AddRecordValues':
      case 'RemoveRecordValues': {
        requireOwned(state, command.accountId);
        const adding = command.type === 'AddRecordValues';
        // Sets for one owner are merged first, so a batch of several publishers is one change per RRset.
        const merged = new Map<string, string[]>();
        for (const set of command.sets) merged.set(set.subname, [...(merged.get(set.subname) ?? []), ...set.values]);
        const rrsets = [...merged].map(([subname, values]) => {
          const current = state.rrsets.get(rrsetKey({ subname, type: command.rrtype }));
          const ttl = current?.ttl ?? (adding ? command.ttl : MIN_TTL);
          const given = canonicalRRset(
            state.name,
            { subname, type: command.rrtype, ttl, records: values },
            'records[0]',
          ).records;
          const had = current?.records ?? [];
          const records = adding
            ? [...had, ...given.filter((r) => !had.includes(r))]
            : had.filter((r) => !given.includes(r));
          return { subname, type: command.rrtype, ttl, records };
        });
        // Delegates to the upsert, whose "only what differs" rule makes a repeated add or remove a no-op.
        return zoneDecider.decide(
          { type: 'UpsertRRsets', accountId: command.accountId, rrsets, at: command.at },
          state,
        );
      }
      case 'RestoreRRsets': {
        requireOwned(state, command.accountId);
        const wanted = new Set(command.rrsets.map(rrsetKey));
        const removals = [...state.rrsets.values()]
          .filter((r) => !wanted.has(rrsetKey(r)))
          .map((r) => ({ subname: r.subname, type: r.type, ttl: r.ttl, records: [] }));
        return zoneDecider.decide(
          {
            type: 'UpsertRRsets',
            accountId: command.accountId,
            rrsets: [...removals, ...command.rrsets],
            recordLimit: command.recordLimit,
            at: command.at,
          },
          state,
        );
      }
      case 'MarkVerified':
        requireOwned(state, command.accountId);
        if (state.status === 'verified') return [];
        return [
          {
            type: 'ZoneVerified',
            data: {
              zone_id: state.id,
              account_id: state.accountId,
              name: state.name,
              method: command.method,
              at: command.at,
            },
          },
        ];
      case 'DeleteZone':
        requireOwned(state, command.accountId);
        return [
          {
            type: 'ZoneDeleted',
            data: { zone_id: state.id, account_id: state.accountId, name: state.name, at: command.at },
          },
        ];
      case 'SetManagedTxt': {
        requireOwned(state, command.accountId);
        // Grouped by name: several families may share one (and a name may be named twice).
        const byName = new Map<string, ManagedTxt[]>();
        for (const c of command.changes) byName.set(c.subname, [...(byName.get(c.subname) ?? []), c]);
        const rrsets = [...byName].map(([subname, changes]): RRsetInput => {
          const current = state.rrsets.get(rrsetKey({ subname, type: 'TXT' }));
          const kept = (current?.records ?? []).filter((r) => !changes.some((c) => txtInFamily(r, c.family)));
          return {
            subname,
            type: 'TXT',
            ttl: current?.ttl ?? command.ttl,
            records: [...new Set([...kept, ...changes.flatMap((c) => c.records)])],
          };
        });
        return zoneDecider.decide(
          {
            type: 'UpsertRRsets',
            accountId: command.accountId,
            rrsets,
            recordLimit: command.recordLimit,
            at: command.at,
          },
          state,
        );
      }
      case 'ApplyDnsUpdate': {
        if (!live(state)) throw new DnsUpdateRefused(UPDATE_RCODE.NOTAUTH, 'not a zone of the service');
        const rrsets = planDnsUpdate(state.rrsets, command.update, command.allow, command.hosts);
        try {
          return zoneDecider.decide(
            {
              type: 'UpsertRRsets',
              accountId: state.accountId,
              rrsets,
              recordLimit: command.recordLimit,
              at: command.at,
            },
            state,
          );
        } catch (e) {
          // What the records API refuses (a CNAME beside other data, bad rdata): refused as a whole.
          throw new DnsUpdateRefused(UPDATE_RCODE.REFUSED, (e as Error).message);
        }
      }
      default:
        return unreachable(command);
    }
  },
};
