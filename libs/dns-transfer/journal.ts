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
 *
 * Only zones someone may transfer are recorded (`transferable`: the zone has a secondary, or
 * the operator's SECONDARIES take every zone): the dynamic-DNS zones' stream of address
 * changes, with nobody to ask for it, cost every DNS thread a diff per update and up to
 * `maxRecords` records of heap each (decision 0107). A zone that becomes transferable starts
 * its history where it stands: at its current serial when nothing changed since it (the
 * history starts then), else at its next serial (the changes so far are its baseline). An IXFR
 * from a serial before that start is answered with the whole zone, as RFC 1995 §2 allows when
 * the history does not reach back (the same answer as for a history past its bounds).
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

/**
 * `off`: not transferable, nothing recorded (`dirty` says whether it changed since `serial`);
 * `fresh`: changes so far are the baseline, the history starts at the next SOA change;
 * `on`: recording.
 */
type Recording = 'off' | 'fresh' | 'on';

interface ZoneJournal {
  serial: number;
  soa: Buffer;
  recording: Recording;
  /** A record changed since `serial` (kept while `off`, to know where a history may start). */
  dirty: boolean;
  /** The zone was just created: its baseline is announced to nobody (no secondary has it yet). */
  created: boolean;
  removed: Map<string, JournalRecord>;
  added: Map<string, JournalRecord>;
  deltas: Delta[];
  records: number;
}

const emptyHistory = () => ({
  removed: new Map<string, JournalRecord>(),
  added: new Map<string, JournalRecord>(),
  deltas: [] as Delta[],
  records: 0,
});

const recordId = (owner: string, record: Buffer) => owner + '\0' + record.toString('latin1');

const everyZone = () => true;

export class Journal {
  private readonly zones = new Map<string, ZoneJournal>();
  private readonly listeners: Array<(zone: string, delta: Delta | null) => void> = [];

  constructor(
    private readonly bounds: JournalBounds = DEFAULT_JOURNAL_BOUNDS,
    /** Whether anyone may transfer the zone now (TransferAcl.transferable); only those are recorded. */
    private readonly transferable: (zone: string) => boolean = everyZone,
  ) {}

  /**
   * Called on each new serial of a recorded zone: with the closed delta, or null when its
   * history starts there (it just became transferable). NOTIFY hangs here.
   */
  onDelta(listener: (zone: string, delta: Delta | null) => void): void {
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
        if (!zone) return;
        if (zone.recording === 'off') {
          if (!this.transferable(change.zone)) {
            zone.dirty = true;
            return;
          }
          // Transferable from now on: the history starts at the current serial if the zone is still as it was then.
          this.startRecording(zone, zone.dirty ? 'fresh' : 'on');
        }
        if (zone.recording === 'on') this.diff(zone, change.owner, change.before, change.after);
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
      const recording = this.transferable(name) ? 'fresh' : 'off';
      this.zones.set(name, { ...emptyHistory(), serial, soa: soaRecord, recording, dirty: false, created: true });
      return;
    }
    const announced = !zone.created;
    zone.created = false;
    if (!this.transferable(name)) {
      // Nobody may transfer it (any more): nothing kept.
      if (zone.recording !== 'off') Object.assign(zone, emptyHistory(), { recording: 'off' });
      Object.assign(zone, { serial, soa: soaRecord, dirty: false });
      return;
    }
    if (zone.recording !== 'on') {
      // The zone as it stands at this serial is the baseline; the history starts here.
      Object.assign(zone, emptyHistory(), { serial, soa: soaRecord, recording: 'on', dirty: false });
      if (announced) for (const listener of this.listeners) listener(name, null);
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

  private startRecording(zone: ZoneJournal, recording: 'fresh' | 'on'): void {
    Object.assign(zone, emptyHistory(), { recording });
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
