import { RecordType } from '../libs/domains/domain/addresses';
import { DomainEventUnion, DOMAIN_EVENT_TYPES } from '../libs/domains/domain/domain.events';
import { ChangeType, hostSubject, SNAPSHOT_EVERY, StoredChange, zoneSubject } from '../libs/history/domain/history';
import {
  applyHostEvent,
  applyZoneEvent,
  HostFields,
  NO_HOST,
  ZoneRecords,
} from '../libs/history/domain/record-changes';
import {
  applySettings,
  changeTypeOf,
  fieldsSetBy,
  SETTINGS_HISTORY_TYPES,
  settingsSubjectOf,
  SettingsKind,
} from '../libs/history/domain/settings-changes';
import { EventShape } from '../libs/projection-engine/read-model';
import { ProjectionContext } from '../libs/projection-engine/projection';
import { defineProjection, defineReadModel, ProjectedEvent } from '../libs/projection-engine/read-model';
import { zoneAncestors } from '../libs/zones/domain/zone-ownership';
import { RRset, rrsetKey, ZoneEvent, ZONE_EVENT_TYPES } from '../libs/zones/domain/zone.events';

/**
 * One change of a zone or host (contract §19 "change"), its diff computed when projected. Only what the
 * history's answers read is stored (decision 0122): `occurred_at` is `at` as ISO text (`occurredAt`), and
 * `restored_from` is present on restores only.
 */
export interface HistoryChangeDoc extends StoredChange {
  /** The event's id (the change's `id`, as in the audit log). */
  _id: string;
  subject: string;
  actor: string | null;
  source_ip: string | null;
  correlation_id: string | null;
  restored_from?: string;
}

/** The change's `occurred_at` as §19 gives it: the event's time, which `at` holds in ms. */
export const occurredAt = (change: Pick<HistoryChangeDoc, 'at'>): string => new Date(change.at).toISOString();

/** A zone or host over its whole life, deleted ones too (as_of before a deletion still answers). */
export interface HistorySubjectDoc {
  _id: string;
  kind: 'zone' | 'host' | SettingsKind;
  /** The zone's uuid or the host's id. */
  id: string;
  account_id: number;
  /** Zone name or host fqdn. */
  name: string;
  /** Hosts: the names above (finds the hosts under a zone for `resolve`). */
  ancestors: string[];
  created_at: number;
  deleted_at: number | null;
  /** Zones: when verified (ms), how the as_of view tells its status then. */
  verified_at: number | null;
  /** The times the zone's own events state (its view's `created_at`, `verified_at`). */
  created_iso: string;
  verified_iso: string | null;
  verification_token: string | null;
  nameservers: string[];
  record_type: RecordType | null;
  /** API keys, certificates, email-auth settings: the fields now, and before the last event applied. */
  settings?: Record<string, unknown>;
  settings_prev?: Record<string, unknown>;
  _pos?: number;
}

/**
 * A host's fields now, and before the last event applied (a redelivered event diffs against them): what the
 * next change's diff reads, apart from the host's subject so that an update rewrites this small document only
 * (decision 0122; the subject is written when the host is created and when it is deleted).
 */
export interface HistoryHostDoc {
  /** The host's subject (`host:<id>`). */
  _id: string;
  host: HostFields;
  host_prev: HostFields;
  _pos: number;
}

/** An RRset as the projection last left it; `records: []` once removed. */
export interface HistoryRRsetDoc {
  _id: string;
  zone_id: string;
  subname: string;
  type: string;
  ttl: number;
  records: string[];
  /** The RRset before the last event applied to it: a redelivered event diffs against this. */
  prev: { ttl: number; records: string[] } | null;
  _pos: number;
}

/** A zone's records after stream revision `seq`. */
export interface HistorySnapshotDoc {
  _id: string;
  zone_id: string;
  seq: number;
  rrsets: RRset[];
}

export const HISTORY_CHANGES = defineReadModel<HistoryChangeDoc>('history', 'history_changes', [
  // The history page and the fold after a snapshot read a range of one subject's revisions.
  { keys: { subject: 1, seq: -1 } },
  // as_of: the last change at or before an instant.
  { keys: { subject: 1, at: -1 } },
]);
export const HISTORY_SUBJECTS = defineReadModel<HistorySubjectDoc>('history', 'history_subjects', [
  { keys: { account_id: 1, name: 1 } },
  { keys: { ancestors: 1 } },
]);
export const HISTORY_HOSTS = defineReadModel<HistoryHostDoc>('history', 'history_hosts');
export const HISTORY_RRSETS = defineReadModel<HistoryRRsetDoc>('history', 'history_rrsets', [{ keys: { zone_id: 1 } }]);
export const HISTORY_SNAPSHOTS = defineReadModel<HistorySnapshotDoc>('history', 'history_snapshots', [
  { keys: { zone_id: 1, seq: -1 } },
]);

/** Settings events are taken by their common shape: only their data's fields are diffed. */
type HistoryEvent = ZoneEvent | DomainEventUnion | EventShape;

const zoneChangeType = (event: ZoneEvent, restored: boolean): ChangeType => {
  switch (event.type) {
    case 'ZoneImported':
      return 'zone_imported';
    case 'ZoneRRsetsChanged':
      return restored ? 'restored' : 'records_changed';
    case 'ZoneVerified':
      return 'zone_verified';
    case 'ZoneDeleted':
      return 'zone_deleted';
  }
};

const hostChangeType = (event: DomainEventUnion, restored: boolean): ChangeType =>
  event.type === 'DomainCreated'
    ? 'host_created'
    : event.type === 'DomainDeleted'
      ? 'host_deleted'
      : restored
        ? 'restored'
        : event.type === 'DomainTtlChanged'
          ? 'ttl_updated'
          : 'address_updated';

function changeDoc(
  event: ProjectedEvent<HistoryEvent>,
  subject: string,
  type: ChangeType | string,
  changes: StoredChange['changes'],
): HistoryChangeDoc {
  const restoredFrom = event.metadata.restored_from;
  const doc: HistoryChangeDoc = {
    _id: event.id,
    subject,
    seq: event.revision,
    at: event.created.getTime(),
    type,
    actor: event.metadata.actor ?? null,
    source_ip: event.metadata.source_ip ?? null,
    correlation_id: event.metadata.correlation_id ?? null,
    changes,
  };
  if (typeof restoredFrom === 'string') doc.restored_from = restoredFrom;
  return doc;
}

async function applyZone(event: ProjectedEvent<ZoneEvent>, ctx: ProjectionContext): Promise<void> {
  const zoneId = event.data.zone_id;
  const rrsets = ctx.collection(HISTORY_RRSETS);
  const subjects = ctx.collection(HISTORY_SUBJECTS);
  const subject = zoneSubject(zoneId);
  // The RRsets this event touches, as they were before it (what a diff needs, and no more).
  const touched =
    event.type === 'ZoneRRsetsChanged'
      ? await rrsets.find({ _id: { $in: event.data.rrsets.map((r) => `${zoneId}|${rrsetKey(r)}`) } })
      : event.type === 'ZoneDeleted'
        ? await rrsets.find({ zone_id: zoneId })
        : [];
  const before: ZoneRecords = new Map();
  for (const doc of touched) {
    const was =
      doc._pos === ctx.position ? doc.prev : doc.records.length ? { ttl: doc.ttl, records: doc.records } : null;
    if (was && was.records.length)
      before.set(`${doc.subname}|${doc.type}`, { subname: doc.subname, type: doc.type, ...was });
  }
  const after: ZoneRecords = new Map(before);
  const changes = applyZoneEvent(after, event);
  const ops = changes.map((c) => {
    const key = `${c.subname}|${c.type}`;
    const now = after.get(key);
    const was = before.get(key);
    const doc: HistoryRRsetDoc = {
      _id: `${zoneId}|${key}`,
      zone_id: zoneId,
      subname: c.subname,
      type: c.type,
      ttl: now?.ttl ?? 0,
      records: now?.records ?? [],
      prev: was ? { ttl: was.ttl, records: was.records } : null,
      _pos: ctx.position,
    };
    return { replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } };
  });
  if (ops.length) await rrsets.bulkWrite(ops);

  const at = event.created.getTime();
  switch (event.type) {
    case 'ZoneImported': {
      const d = event.data;
      const doc: HistorySubjectDoc = {
        _id: subject,
        kind: 'zone',
        id: zoneId,
        account_id: d.account_id,
        name: d.name,
        ancestors: [],
        created_at: at,
        deleted_at: null,
        verified_at: null,
        created_iso: d.created_at,
        verified_iso: null,
        verification_token: d.verification_token,
        nameservers: d.nameservers,
        record_type: null,
      };
      await subjects.replaceOne({ _id: subject }, doc, { upsert: true });
      break;
    }
    case 'ZoneVerified':
      await subjects.updateOne({ _id: subject }, { $set: { verified_at: at, verified_iso: event.data.at } });
      break;
    case 'ZoneDeleted':
      await subjects.updateOne({ _id: subject }, { $set: { deleted_at: at } });
      break;
    default:
      break;
  }
  const restored = event.metadata.restored_from !== undefined;
  await ctx
    .collection(HISTORY_CHANGES)
    .replaceOne({ _id: event.id }, changeDoc(event, subject, zoneChangeType(event, restored), changes), {
      upsert: true,
      unseen: ctx.firstDelivery,
    });
  if (event.type !== 'ZoneDeleted' && event.revision % SNAPSHOT_EVERY === 0) {
    const live = (await rrsets.find({ zone_id: zoneId })).filter((r) => r.records.length > 0);
    const snapshot: HistorySnapshotDoc = {
      _id: `${zoneId}@${event.revision}`,
      zone_id: zoneId,
      seq: event.revision,
      rrsets: live.map((r) => ({ subname: r.subname, type: r.type, ttl: r.ttl, records: r.records })),
    };
    // Keyed by the event's revision: at its first delivery there is no snapshot to look for.
    await ctx
      .collection(HISTORY_SNAPSHOTS)
      .replaceOne({ _id: snapshot._id }, snapshot, { upsert: true, unseen: ctx.firstDelivery });
  }
}

/**
 * The host's fields as version 1 kept them, in its subject: the generation a version-1 deployment wrote goes
 * on being applied to while version 2 is rebuilt beside it (projection-leases), and its hosts have no
 * `history_hosts` document until their first change since. Read only when that document is missing.
 */
async function versionOneHostState(ctx: ProjectionContext, subject: string): Promise<HistoryHostDoc | null> {
  const legacy = (await ctx
    .collection(HISTORY_SUBJECTS)
    .findOne({ _id: subject }, { projection: { host: 1, host_prev: 1, _pos: 1 } })) as {
    host?: HostFields | null;
    host_prev?: HostFields | null;
    _pos?: number;
  } | null;
  if (!legacy?.host) return null;
  return { _id: subject, host: legacy.host, host_prev: legacy.host_prev ?? NO_HOST, _pos: legacy._pos ?? -1 };
}

async function applyHost(event: ProjectedEvent<DomainEventUnion>, ctx: ProjectionContext): Promise<void> {
  const d = event.data;
  const subject = hostSubject(d.domain_id);
  const hosts = ctx.collection(HISTORY_HOSTS);
  const created = event.type === 'DomainCreated';
  // A host's fields are written first by its first event: at that event's first delivery there are none to read.
  const state =
    created && ctx.firstDelivery
      ? null
      : ((await hosts.findOne({ _id: subject })) ?? (await versionOneHostState(ctx, subject)));
  const before = state ? (state._pos === ctx.position ? state.host_prev : state.host) : null;
  const { host, changes } = applyHostEvent(before ?? NO_HOST, event);
  const at = event.created.getTime();
  if (created) {
    const doc: HistorySubjectDoc = {
      _id: subject,
      kind: 'host',
      id: String(d.domain_id),
      account_id: d.account_id,
      name: d.fqdn,
      ancestors: zoneAncestors(d.fqdn),
      created_at: at,
      deleted_at: null,
      verified_at: null,
      created_iso: event.data.created_at,
      verified_iso: null,
      verification_token: null,
      nameservers: [],
      record_type: event.data.record_type,
    };
    await ctx
      .collection(HISTORY_SUBJECTS)
      .replaceOne({ _id: subject }, doc, { upsert: true, unseen: ctx.firstDelivery });
  } else if (state && event.type === 'DomainDeleted') {
    await ctx.collection(HISTORY_SUBJECTS).updateOne({ _id: subject }, { $set: { deleted_at: at } });
  }
  if (created || state) {
    const next: HistoryHostDoc = { _id: subject, host, host_prev: before ?? NO_HOST, _pos: ctx.position };
    await hosts.replaceOne({ _id: subject }, next, { upsert: true, unseen: created && ctx.firstDelivery });
  }
  const change = changeDoc(event, subject, hostChangeType(event, event.metadata.restored_from !== undefined), changes);
  change.host = host;
  // Keyed by the event: at its first delivery there is no change document to look for (as the audit log).
  await ctx
    .collection(HISTORY_CHANGES)
    .replaceOne({ _id: event.id }, change, { upsert: true, unseen: ctx.firstDelivery });
}

const ZONE_TYPES = new Set<string>(ZONE_EVENT_TYPES);
const DOMAIN_TYPES = new Set<string>(DOMAIN_EVENT_TYPES);
const SETTINGS_DELETIONS = new Set(['CertificateDeleted']);

async function applySettingsEvent(event: ProjectedEvent<EventShape>, ctx: ProjectionContext): Promise<void> {
  const data = event.data as Record<string, unknown>;
  const subjects = ctx.collection(HISTORY_SUBJECTS);
  const probe = settingsSubjectOf(event.type, data, Number(event.metadata.account_id ?? data.account_id));
  if (!probe) return;
  // Email-auth subjects are per account: without one in the event there is no subject to find.
  const doc =
    probe.kind === 'email_auth' && event.metadata.account_id === undefined && data.account_id === undefined
      ? null
      : await subjects.findOne({ _id: probe.subject });
  const accountId = event.metadata.account_id ?? (data.account_id as number | undefined) ?? doc?.account_id;
  if (accountId === undefined) return;
  const before = (doc ? (doc._pos === ctx.position ? doc.settings_prev : doc.settings) : null) ?? {};
  const { after, changes } = applySettings(before, fieldsSetBy(event.type, data));
  const at = event.created.getTime();
  if (!doc) {
    const created: HistorySubjectDoc = {
      _id: probe.subject,
      kind: probe.kind,
      id: probe.name,
      account_id: accountId,
      name: probe.name,
      ancestors: [],
      created_at: at,
      deleted_at: SETTINGS_DELETIONS.has(event.type) ? at : null,
      verified_at: null,
      created_iso: event.created.toISOString(),
      verified_iso: null,
      verification_token: null,
      nameservers: [],
      record_type: null,
      settings: after,
      settings_prev: before,
      _pos: ctx.position,
    };
    await subjects.replaceOne({ _id: probe.subject }, created, { upsert: true });
  } else {
    const deleted = SETTINGS_DELETIONS.has(event.type) ? { deleted_at: at } : {};
    await subjects.updateOne(
      { _id: probe.subject },
      { $set: { settings: after, settings_prev: before, _pos: ctx.position, ...deleted } },
    );
  }
  await ctx
    .collection(HISTORY_CHANGES)
    .replaceOne(
      { _id: event.id },
      changeDoc(event as ProjectedEvent<HistoryEvent>, probe.subject, changeTypeOf(event.type), changes),
      { upsert: true, unseen: ctx.firstDelivery },
    );
}

/**
 * history: every change of a zone's records, a host's addresses, an API key, a certificate
 * or an account's email-auth settings for a zone with its diff, newest
 * first per zone or host (§19 history), plus what as_of needs without a replay: the zones'
 * and hosts' lives, periodic snapshots of each zone's records, and each RRset's current
 * records (what the next diff compares against). Redelivered events are recognised by the
 * position stored beside each current value, so a replay after a crash diffs the same.
 */
export const historyProjection = defineProjection<HistoryEvent>({
  name: 'history',
  // 2: a host's current fields in `history_hosts`, not its subject; changes without `occurred_at`, `position`,
  // `account_id` and a null `restored_from` (decision 0122).
  version: 2,
  readModels: [HISTORY_CHANGES, HISTORY_SUBJECTS, HISTORY_HOSTS, HISTORY_RRSETS, HISTORY_SNAPSHOTS],
  handles: [...ZONE_EVENT_TYPES, ...DOMAIN_EVENT_TYPES, ...SETTINGS_HISTORY_TYPES],
  async apply(event, ctx) {
    // Applied before (a replay from an older checkpoint): its change is stored, and the current values moved on.
    if (!ctx.firstDelivery && (await ctx.collection(HISTORY_CHANGES).findOne({ _id: event.id }))) return;
    if (ZONE_TYPES.has(event.type)) return applyZone(event as ProjectedEvent<ZoneEvent>, ctx);
    if (DOMAIN_TYPES.has(event.type)) return applyHost(event as ProjectedEvent<DomainEventUnion>, ctx);
    return applySettingsEvent(event as ProjectedEvent<EventShape>, ctx);
  },
});
