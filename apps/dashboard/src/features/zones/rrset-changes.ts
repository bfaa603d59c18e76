import type { RRset } from '../../api/types';

/**
 * What saving the record form does to the zone (issue 27): adding merges into the RRset of
 * that name and type, editing may drop records, and a changed name or type moves the RRset.
 * The PUT upserts whole RRsets (contract §4), so the plan is the RRsets to send plus, for
 * the confirmation, every record they remove.
 */
export interface Removal {
  subname: string;
  type: string;
  records: string[];
  /** The whole RRset goes (deleted or moved away). */
  whole: boolean;
}

export interface ChangePlan {
  rrsets: RRset[];
  removals: Removal[];
  /** Set when the RRset moves to another name or type. */
  movedTo: { subname: string; type: string } | null;
}

/** TTL of records added at a new name and type when none is typed. */
export const DEFAULT_TTL = 3600;

/** Presentation strings compared as the server stores them: outer spaces trimmed, runs of spaces outside quotes don't matter. */
const norm = (r: string) => r.trim().replace(/\s+/g, ' ');
const sameKey = (a: { subname: string; type: string }, b: { subname: string; type: string }) =>
  a.subname === b.subname && a.type === b.type;
const union = (base: string[], added: string[]) => {
  const seen = new Set(base.map(norm));
  return [...base, ...added.filter((r) => !seen.has(norm(r)) && seen.add(norm(r)))];
};

/** `@`, a trailing zone name or dot, and case: the API's subname form. */
export function subnameOf(input: string, zone: string): string {
  const n = input.trim().toLowerCase().replace(/\.$/, '');
  if (n === '@' || n === zone) return '';
  return n.endsWith(`.${zone}`) ? n.slice(0, -(zone.length + 1)) : n;
}

/**
 * `original` is the RRset being edited (null when adding); `existing` the zone's RRsets as
 * the screen shows them; `edited` what the form holds (`ttl` 0: none typed).
 */
export function planChange(existing: RRset[], original: RRset | null, edited: RRset): ChangePlan {
  const target = existing.find((r) => sameKey(r, edited));
  if (!original) {
    // Added records take the RRset's TTL unless one was typed (a TTL belongs to the whole RRset).
    const ttl = edited.ttl || target?.ttl || DEFAULT_TTL;
    return {
      rrsets: [{ ...edited, ttl, records: union(target?.records ?? [], edited.records) }],
      removals: [],
      movedTo: null,
    };
  }
  if (sameKey(original, edited)) {
    const kept = new Set(edited.records.map(norm));
    const dropped = original.records.filter((r) => !kept.has(norm(r)));
    return {
      rrsets: [edited],
      removals: dropped.length
        ? [{ subname: original.subname, type: original.type, records: dropped, whole: edited.records.length === 0 }]
        : [],
      movedTo: null,
    };
  }
  // A move: the old RRset goes, the records join whatever already sits at the new name and type.
  return {
    rrsets: [
      { ...original, records: [] },
      { ...edited, records: union(target?.records ?? [], edited.records) },
    ],
    removals: [{ subname: original.subname, type: original.type, records: original.records, whole: true }],
    movedTo: { subname: edited.subname, type: edited.type },
  };
}

export const rrsetLabel = (r: { subname: string; type: string }) => `${r.subname || '@'} ${r.type}`;
