/**
 * The IXFR journal: per zone, the differences between consecutive SOA serials, built from
 * the zone index's changes (ZoneIndex.observe). Every DNS process rebuilds the index from
 * the event log at start, so it rebuilds this history too: event sourcing makes the deltas
 * exact and lets them survive restarts, within the bounds below.
 *
 * Changes between two SOA changes are one delta. A zone new to the index starts its history
 * at its first SOA change after creation (the records it was created with are its baseline,
 * not a delta). Record-level differences are kept (an RRset rewritten with the same records
 * is no change), as references to the index's immutable encoded records.
 */
import type { EncodedRRset, IndexChange } from '../dns-server';

/** One resource record: owner (wire key) and the record from its type field on. */
export interface JournalRecord {
  owner: string;
  record: Buffer;
}

export interface Delta {
  fromSerial: number;
  toSerial: number;
  fromSoa: Buffer;
  toSoa: Buffer;
  removed: JournalRecord[];
  added: JournalRecord[];
}

export interface JournalBounds {
  /** Deltas kept per zone. */
  maxDeltas: number;
  /** Records (removed + added) kept per zone across its deltas. */
  maxRecords: number;
}

/** 1,000 changes answer an IXFR after a day of hourly edits many times over; 100k records bound memory per zone (~10 MB). */
export const DEFAULT_JOURNAL_BOUNDS: JournalBounds = { maxDeltas: 2_000, maxRecords: 100_000 };

interface ZoneJournal {
  serial: number;
  soa: Buffer;
  /** No SOA change since the zone appeared: changes so far are its baseline. */
  fresh: boolean;
  removed: Map<string, JournalRecord>;
  added: Map<string, JournalRecord>;
  deltas: Delta[];
  records: number;
}

const recordId = (owner: string, record: Buffer) => owner + '\0' + record.toString('latin1');

export class Journal {
  private readonly zones = new Map<string, ZoneJournal>();
  private readonly listeners: Array<(zone: string, delta: Delta) => void> = [];

  constructor(private readonly bounds: JournalBounds = DEFAULT_JOURNAL_BOUNDS) {}

  /** Called once per closed delta (a new serial): NOTIFY hangs here. */
  onDelta(listener: (zone: string, delta: Delta) => void): void {
    this.listeners.push(listener);
  }

  /** Feed for ZoneIndex.observe. */
  readonly apply = (change: IndexChange): void => {
    switch (change.kind) {
      case 'removed':
        this.zones.delete(change.zone);
        return;
      case 'zone':
        return this.serialChanged(change.zone, change.serial, change.soa, change.created);
      case 'rrset': {
        const zone = this.zones.get(change.zone);
        if (!zone || zone.fresh) return;
        this.diff(zone, change.owner, change.before, change.after);
        return;
      }
    }
  };

  /**
   * The deltas from `serial` to the current serial, in order; [] when `serial` is current;
   * null when the history does not reach back that far (answer with the whole zone).
   */
  since(zoneName: string, serial: number): Delta[] | null {
    const zone = this.zones.get(zoneName);
    if (!zone) return null;
    if (serial === zone.serial) return [];
    const start = zone.deltas.findIndex((d) => d.fromSerial === serial);
    return start < 0 ? null : zone.deltas.slice(start);
  }

  /** Deltas kept for a zone (metrics, tests). */
  size(zoneName: string): number {
    return this.zones.get(zoneName)?.deltas.length ?? 0;
  }

  private serialChanged(name: string, serial: number, soa: EncodedRRset, created: boolean): void {
    const soaRecord = soa.encoded[0];
    const zone = this.zones.get(name);
    if (created || !zone) {
      this.zones.set(name, {
        serial,
        soa: soaRecord,
        fresh: true,
        removed: new Map(),
        added: new Map(),
        deltas: [],
        records: 0,
      });
      return;
    }
    if (zone.fresh) {
      // The first SOA change after creation: what came before it is the zone's baseline.
      Object.assign(zone, { serial, soa: soaRecord, fresh: false, removed: new Map(), added: new Map() });
      return;
    }
    const delta: Delta = {
      fromSerial: zone.serial,
      toSerial: serial,
      fromSoa: zone.soa,
      toSoa: soaRecord,
      removed: [...zone.removed.values()],
      added: [...zone.added.values()],
    };
    zone.serial = serial;
    zone.soa = soaRecord;
    zone.removed = new Map();
    zone.added = new Map();
    zone.deltas.push(delta);
    zone.records += delta.removed.length + delta.added.length;
    while (
      zone.deltas.length > this.bounds.maxDeltas ||
      (zone.records > this.bounds.maxRecords && zone.deltas.length > 0)
    ) {
      const old = zone.deltas.shift()!;
      zone.records -= old.removed.length + old.added.length;
    }
    for (const listener of this.listeners) listener(name, delta);
  }

  /** Record-level difference of one RRset change, netted against the pending delta. */
  private diff(zone: ZoneJournal, owner: string, before: EncodedRRset | null, after: EncodedRRset | null): void {
    const old = new Map((before?.encoded ?? []).map((r) => [recordId(owner, r), r]));
    const now = new Map((after?.encoded ?? []).map((r) => [recordId(owner, r), r]));
    for (const [id, record] of old) {
      if (now.has(id)) continue;
      // Added earlier in this delta, removed now: no change at all.
      if (!zone.added.delete(id)) zone.removed.set(id, { owner, record });
    }
    for (const [id, record] of now) {
      if (old.has(id)) continue;
      if (!zone.removed.delete(id)) zone.added.set(id, { owner, record });
    }
  }
}
