import { Inject, Injectable } from '@nestjs/common';
import { ACCOUNTS } from '../../../projections/accounts.projection';
import { API_KEYS } from '../../../projections/api-keys.projection';
import {
  HISTORY_CHANGES,
  HISTORY_SNAPSHOTS,
  HISTORY_SUBJECTS,
  HistoryChangeDoc,
  HistorySubjectDoc,
  occurredAt,
} from '../../../projections/history.projection';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { notFound, validationFailed } from '../../shared/errors';
import { RRset } from '../../zones/domain/zone.events';
import { normalizeFqdn } from '../../shared/fqdn';
import { actorParts, foldRecords } from '../domain/history';
import { HostFields } from '../domain/record-changes';

const ZONE_GONE = 'The zone did not exist at that instant';
const HOST_GONE = 'The domain did not exist at that instant';
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** An instant of contract §19 `as_of`: ISO 8601 with `Z` or an offset, not in the future (400 otherwise). */
export function parseAsOf(raw: unknown, now: Date): number {
  if (typeof raw !== 'string' || !ISO_INSTANT.test(raw) || Number.isNaN(Date.parse(raw))) {
    throw validationFailed('as_of must be an ISO 8601 instant with Z or an offset, e.g. 2026-01-01T12:00:00Z');
  }
  const at = Date.parse(raw);
  if (at > now.getTime()) throw validationFailed('as_of is in the future');
  return at;
}

const encodeCursor = (seq: number) => Buffer.from(`s:${seq}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const m = /^s:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw validationFailed('cursor is not one this endpoint gave');
  return Number(m[1]);
}

/** A zone's records at an instant, with what `resolve` needs to build it as it was served. */
export interface ZoneAt {
  subject: HistorySubjectDoc;
  records: RRset[];
  /** Time of the zone's last change at or before the instant (the SOA serial follows it). */
  changedAt: number;
}

/**
 * Reads of the history read model. Every read first waits for the projection to reach the
 * event store's head, so a change made a moment ago is in its history and in `as_of` now.
 */
@Injectable()
export class HistoryQueries {
  constructor(
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private get changes() {
    return this.projections.readModel(HISTORY_CHANGES);
  }
  private get subjects() {
    return this.projections.readModel(HISTORY_SUBJECTS);
  }

  now(): Date {
    return this.clock.now();
  }

  async caughtUp(): Promise<void> {
    await this.projections.waitFor(await this.store.headPosition(), 5000, ['history']);
  }

  /** The account's zone or host of that name: the one alive at `at`, or (no instant) the latest. */
  private async subjectOf(
    kind: 'zone' | 'host',
    accountId: number,
    name: string,
    at: number | null,
  ): Promise<HistorySubjectDoc> {
    const lives = (await this.subjects.find({ account_id: accountId, name }))
      .filter((s) => s.kind === kind)
      .sort((a, b) => b.created_at - a.created_at);
    const message = kind === 'zone' ? 'Zone not found' : 'Domain not found';
    if (lives.length === 0) throw notFound(message);
    if (at === null) return lives.find((s) => s.deleted_at === null) ?? lives[0];
    const alive = lives.find((s) => s.created_at <= at && (s.deleted_at === null || at < s.deleted_at));
    if (!alive) throw notFound(kind === 'zone' ? ZONE_GONE : HOST_GONE);
    return alive;
  }

  zoneSubject(accountId: number, zone: string, at: number | null) {
    return this.subjectOf('zone', accountId, zone.trim().toLowerCase().replace(/\.$/, ''), at);
  }

  hostSubject(accountId: number, fqdn: string, at: number | null) {
    return this.subjectOf('host', accountId, normalizeFqdn(fqdn), at);
  }

  /** An API key, certificate or email-auth zone of the account (404 otherwise, other accounts' too). */
  async settingsSubject(
    kind: 'api_key' | 'certificate' | 'email_auth',
    accountId: number,
    id: string,
  ): Promise<HistorySubjectDoc> {
    const key =
      kind === 'email_auth' ? `email_auth:${accountId}:${id.trim().toLowerCase().replace(/\.$/, '')}` : `${kind}:${id}`;
    const doc = await this.subjects.findOne({ _id: key });
    if (!doc || doc.account_id !== accountId)
      throw notFound(
        kind === 'api_key'
          ? 'API key not found'
          : kind === 'certificate'
            ? 'Certificate not found'
            : 'No email-authentication settings for this zone',
      );
    return doc;
  }

  /** The last change of a subject at or before `at` (the highest revision among changes of the same millisecond). */
  private async lastChangeAt(subject: string, at: number): Promise<HistoryChangeDoc | null> {
    const [latest] = await this.changes.find({ subject, at: { $lte: at } }, { sort: { at: -1 }, limit: 1 });
    if (!latest) return null;
    const same = await this.changes.find({ subject, at: latest.at });
    return same.reduce((a, b) => (b.seq > a.seq ? b : a), latest);
  }

  /** The records of a zone at `at`: its latest snapshot at or before then, and the changes after it. */
  async zoneAt(subject: HistorySubjectDoc, at: number): Promise<ZoneAt> {
    const last = await this.lastChangeAt(subject._id, at);
    if (!last || last.type === 'zone_deleted') throw notFound(ZONE_GONE);
    const [snapshot] = await this.projections
      .readModel(HISTORY_SNAPSHOTS)
      .find({ zone_id: subject.id, seq: { $lte: last.seq } }, { sort: { seq: -1 }, limit: 1 });
    const from = snapshot?.seq ?? -1;
    const tail =
      from === last.seq
        ? []
        : await this.changes.find({ subject: subject._id, seq: { $gt: from, $lte: last.seq } }, { sort: { seq: 1 } });
    return { subject, records: foldRecords(snapshot?.rrsets ?? [], tail), changedAt: last.at };
  }

  /** A host's fields at `at` (null before it was created or once deleted). */
  async hostAt(subject: HistorySubjectDoc, at: number): Promise<{ host: HostFields; changedAt: number } | null> {
    const last = await this.lastChangeAt(subject._id, at);
    if (!last || last.type === 'host_deleted' || !last.host) return null;
    return { host: last.host, changedAt: last.at };
  }

  /** The hosts of the account under a zone, as `resolve` places them in it. */
  hostsUnder(accountId: number, zone: string): Promise<HistorySubjectDoc[]> {
    return this.subjects.find({ ancestors: zone, account_id: accountId, kind: 'host' });
  }

  /** A subject's changes, newest first (contract §19 history). */
  async page(subject: HistorySubjectDoc, cursor: string | undefined, limit: number) {
    const filter: Record<string, unknown> = { subject: subject._id };
    if (cursor !== undefined) filter.seq = { $lt: decodeCursor(cursor) };
    const docs = await this.changes.find(filter, { sort: { seq: -1 }, limit: limit + 1 });
    const page = docs.slice(0, limit);
    const names = await this.actorNames(page.map((d) => d.actor));
    return {
      data: page.map((d) => {
        const actor = actorParts(d.actor);
        return {
          id: d._id,
          type: d.type,
          occurred_at: occurredAt(d),
          actor: { ...actor, name: actor.id === null ? null : (names.get(`${actor.type}:${actor.id}`) ?? null) },
          source_ip: d.source_ip,
          correlation_id: d.correlation_id,
          changes: d.changes,
          ...(d.type === 'restored' ? { restored_from: d.restored_from ?? null } : {}),
        };
      }),
      next_cursor: docs.length > limit ? encodeCursor(page[page.length - 1].seq) : null,
    };
  }

  /** Display names of the actors on a page: a user's username, an API key's name. */
  private async actorNames(actors: (string | null)[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    const parts = actors.map(actorParts);
    const users = [...new Set(parts.filter((a) => a.type === 'user' && a.id).map((a) => Number(a.id)))];
    const keys = [...new Set(parts.filter((a) => a.type === 'api_key' && a.id).map((a) => a.id!))];
    if (users.length)
      for (const u of await this.projections.readModel(ACCOUNTS).find({ _id: { $in: users } }))
        names.set(`user:${u._id}`, u.username);
    if (keys.length)
      for (const k of await this.projections.readModel(API_KEYS).find({ _id: { $in: keys } }))
        names.set(`api_key:${k._id}`, k.name);
    return names;
  }
}
