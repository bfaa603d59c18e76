import { DomainEventUnion, DOMAIN_EVENT_TYPES } from '../libs/domains/domain/domain.events';
import { familyOfType } from '../libs/domains/domain/addresses';
import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { guardedUpdate } from './guard';
import { Collection } from '../libs/readstore/read-store.port';
import { UPTIME_DOMAINS, UPTIME_PROJECTION, UptimeDomainDoc } from './uptime-domains.read-model';
import { addDaily, addHourly } from '../libs/uptime/domain/history';
import { CheckRecorded, MonitorEvent, MONITOR_EVENT_TYPES } from '../libs/uptime/domain/uptime.events';

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
const set = (docs: Collection<UptimeDomainDoc>, id: number, position: number, fields: Partial<UptimeDomainDoc>): Promise<void> =>
  guardedUpdate(docs, id, position, { $set: { ...fields, target_pos: position } }, { upsert: false });

/**
 * uptime: per-domain monitoring state, last check and bounded history, from the domain
 * events (address, deletion), the monitor toggles and every `CheckRecorded`.
 */
export const uptimeDomainsProjection: ProjectionDefinition = {
  name: UPTIME_PROJECTION,
  version: 1,
  collections: [UPTIME_DOMAINS],
  handles: [...DOMAIN_EVENT_TYPES, ...MONITOR_EVENT_TYPES, 'CheckRecorded'],
  async setup(ctx) {
    // account_id first: the embedded store narrows by the first index a filter pins; target_pos serves Mongo's range scan.
    await ctx.collection(UPTIME_DOMAINS).createIndex({ account_id: 1 });
    await ctx.collection(UPTIME_DOMAINS).createIndex({ target_pos: 1 });
  },
  async apply(raw, ctx) {
    const docs = ctx.collection<UptimeDomainDoc>(UPTIME_DOMAINS);
    const pos = ctx.position;
    const event = raw as unknown as Handled;
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
          hourly: [],
          daily: [],
          _pos: pos,
        });
        return;
      }
      // Field updates: the document (with its history) is neither read nor copied whole.
      case 'DomainAddressesChanged': {
        // The address is kept for when monitoring starts; only a monitored domain's change
        // concerns the scheduler (target_pos), so DDNS churn on unmonitored hosts costs it nothing.
        const id = event.data.domain_id;
        const { ipv4, ipv6 } = event.data.addresses;
        await guardedUpdate(docs, id, pos, { $set: { ipv4, ipv6 } }, { upsert: false });
        await docs.updateOne({ _id: id, monitor_enabled: true, target_pos: { $lt: pos } }, { $set: { target_pos: pos } });
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
          hourly: addHourly(doc.hourly, at, c.is_up, c.response_time_ms),
          daily: addDaily(doc.daily, at, c.is_up, c.response_time_ms),
        }));
      }
      default:
        return;
    }
  },
};
