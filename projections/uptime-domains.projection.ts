import { DomainEventUnion, DOMAIN_EVENT_TYPES } from '../libs/domains/domain/domain.events';
import { familyOfType } from '../libs/domains/domain/addresses';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { guardedUpdate } from './guard';
import { Collection } from '../libs/readstore/read-store.port';
import { addDailyPacked, addHourlyPacked, Bucket, PackedBuckets } from '../libs/uptime/domain/history';
import { LastCheck } from '../libs/uptime/domain/status';
import { CheckRecorded, MonitorEvent, MONITOR_EVENT_TYPES } from '../libs/uptime/domain/uptime.events';

/**
 * One document per domain: what the scheduler needs (monitored? which address?), the
 * current status (last check) and the bounded history (24 hourly + 30 daily buckets),
 * so each check costs one read and one write of one document, and history needs no
 * separate pruning job.
 */
export interface UptimeDomainDoc {
  _id: number;
  domain_id: number;
  account_id: number;
  fqdn: string;
  ipv4: string | null;
  ipv6: string | null;
  monitor_enabled: boolean;
  enabled_at: string | null;
  /** Deleted domains stay (marked) so the scheduler learns to drop them and the limit stops counting them. */
  deleted: boolean;
  /**
   * Global position of the last event that changed what the scheduler checks (address,
   * monitoring, deletion); checks do not move it, so schedulers sync incrementally.
   */
  target_pos: number;
  last: LastCheck | null;
  /** Packed (`PackedBuckets`); documents projected before packing hold arrays until their next check. */
  hourly: PackedBuckets | Bucket[];
  daily: PackedBuckets | Bucket[];
  /** Position of the last event applied (idempotence guard). */
  _pos: number;
}

// account_id first: the embedded store narrows by the first index a filter pins; target_pos serves Mongo's range scan.
export const UPTIME_DOMAINS = defineReadModel<UptimeDomainDoc>('uptime', 'uptime_domains', [
  { keys: { account_id: 1 } },
  { keys: { target_pos: 1 } },
]);

type Handled = DomainEventUnion | MonitorEvent | CheckRecorded;

/**
 * Read-modify-write of one domain's document, at most once per event: the document
 * remembers the position of the last event applied (`_pos`). Events reach a projection
 * one at a time, in order, so nothing else writes the document in between.
 */
async function change(
  docs: Collection<UptimeDomainDoc>,
  id: number,
  position: number,
  next: (doc: UptimeDomainDoc) => Partial<UptimeDomainDoc> | null,
): Promise<void> {
  const doc = await docs.findOne({ _id: id });
  if (!doc || doc._pos >= position) return;
  const patch = next(doc);
  if (patch) await docs.replaceOne({ _id: id }, { ...doc, ...patch, _pos: position });
}

/** Sets fields of an existing domain's document (never creates one), at most once per event. */
const set = (
  docs: Collection<UptimeDomainDoc>,
  id: number,
  position: number,
  fields: Partial<UptimeDomainDoc>,
): Promise<void> => guardedUpdate(docs, id, position, { $set: { ...fields, target_pos: position } }, { upsert: false });

/**
 * uptime: per-domain monitoring state, last check and bounded history, from the domain
 * events (address, deletion), the monitor toggles and every `CheckRecorded`.
 */
export const uptimeDomainsProjection = defineProjection<Handled>({
  name: UPTIME_DOMAINS.projection,
  version: 1,
  readModels: [UPTIME_DOMAINS],
  handles: [...DOMAIN_EVENT_TYPES, ...MONITOR_EVENT_TYPES, 'CheckRecorded'],
  async apply(event, ctx) {
    const docs = ctx.collection(UPTIME_DOMAINS);
    const pos = ctx.position;
    switch (event.type) {
      case 'DomainCreated': {
        const d = event.data;
        if (await docs.findOne({ _id: d.domain_id })) return;
        const addresses = { ipv4: null, ipv6: null, [familyOfType(d.record_type)]: d.record_ip };
        await docs.insertOne({
          _id: d.domain_id,
          domain_id: d.domain_id,
          account_id: d.account_id,
          fqdn: d.fqdn,
          ipv4: addresses.ipv4,
          ipv6: addresses.ipv6,
          monitor_enabled: false,
          enabled_at: null,
          deleted: false,
          target_pos: pos,
          last: null,
          hourly: '',
          daily: '',
          _pos: pos,
        });
        return;
      }
      // Field updates: the document (with its history) is neither read nor copied whole.
      case 'DomainAddressesChanged': {
        // The address is kept for when monitoring starts; only a monitored domain's change
        // concerns the scheduler (target_pos), so DDNS churn on unmonitored hosts costs it nothing.
        // One update for an unmonitored domain (most DDNS hosts), a second only when it is monitored:
        // the two filters part on `monitor_enabled`, so at most one of them writes (decision 0127).
        const id = event.data.domain_id;
        const { ipv4, ipv6 } = event.data.addresses;
        const unmonitored = await docs.updateOne(
          { _id: id, _pos: { $lt: pos }, monitor_enabled: false },
          { $set: { ipv4, ipv6, _pos: pos } },
        );
        if (unmonitored.matchedCount === 0)
          await docs.updateOne(
            { _id: id, _pos: { $lt: pos }, monitor_enabled: true },
            { $set: { ipv4, ipv6, target_pos: pos, _pos: pos } },
          );
        return;
      }
      case 'DomainDeleted':
        return set(docs, event.data.domain_id, pos, { deleted: true, monitor_enabled: false });
      case 'MonitorEnabled':
        return set(docs, event.data.domain_id, pos, { monitor_enabled: true, enabled_at: event.data.at });
      case 'MonitorDisabled':
        return set(docs, event.data.domain_id, pos, { monitor_enabled: false });
      case 'CheckRecorded': {
        const c = event.data;
        const at = Date.parse(c.checked_at);
        return change(docs, c.domain_id, pos, (doc) => ({
          // A late check (older than the one shown) still counts in history but does not replace the status.
          ...(doc.last && doc.last.at > c.checked_at
            ? {}
            : { last: { at: c.checked_at, is_up: c.is_up, response_time_ms: c.response_time_ms, error: c.error } }),
          hourly: addHourlyPacked(doc.hourly, at, c.is_up, c.response_time_ms),
          daily: addDailyPacked(doc.daily, at, c.is_up, c.response_time_ms),
        }));
      }
      default:
        return;
    }
  },
});
