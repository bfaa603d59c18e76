import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { applyRRsets } from '../libs/zones/domain/rrsets';
import { RRset, rrsetKey, verificationRecordName, ZoneEvent, ZONE_EVENT_TYPES } from '../libs/zones/domain/zone.events';
import { zoneAncestors } from '../libs/zones/domain/zone-ownership';
import { guardedUpdate } from './guard';

/** A live imported zone with its RRsets. */
export interface ZoneDoc {
  _id: string;
  id: string;
  account_id: number;
  name: string;
  /** The names above this zone that could be zones: finds the zones below a name (ownership rules). */
  ancestors: string[];
  status: 'pending_verification' | 'verified';
  verification: { record_name: string; record_value: string };
  nameservers: string[];
  rrsets: RRset[];
  created_at: string;
  verified_at: string | null;
  /** How the zone was verified (the email-auth API's hosting mode); absent until verified. */
  verified_by?: 'ns' | 'txt';
}

export const ZONES = defineReadModel<ZoneDoc>('zones', 'zones', [
  { keys: { account_id: 1 } },
  { keys: { name: 1 } },
  { keys: { ancestors: 1 } },
]);

/** zones: one document per live imported zone, with its RRsets, for the zones API and the fqdn rules. */
export const zonesProjection = defineProjection<ZoneEvent>({
  name: 'zones',
  // 2: verified_by (how the zone was verified: the email-auth API's hosting mode); 3: ancestors
  version: 3,
  readModels: [ZONES],
  handles: ZONE_EVENT_TYPES,
  async apply(event, ctx) {
    const zones = ctx.collection(ZONES);
    switch (event.type) {
      case 'ZoneImported': {
        const d = event.data;
        return guardedUpdate(zones, d.zone_id, ctx.position, {
          $set: {
            id: d.zone_id,
            account_id: d.account_id,
            name: d.name,
            ancestors: zoneAncestors(d.name),
            status: 'pending_verification',
            verification: { record_name: verificationRecordName(d.name), record_value: d.verification_token },
            nameservers: d.nameservers,
            rrsets: d.rrsets,
            created_at: d.created_at,
            verified_at: null,
          },
        });
      }
      case 'ZoneRRsetsChanged': {
        const doc = await zones.findOne({ _id: event.data.zone_id });
        if (!doc) return;
        const current = new Map<string, RRset>(doc.rrsets.map((r) => [rrsetKey(r), r]));
        const rrsets = [...applyRRsets(current, event.data.rrsets).values()];
        return guardedUpdate(zones, event.data.zone_id, ctx.position, { $set: { rrsets } }, { upsert: false });
      }
      case 'ZoneVerified':
        return guardedUpdate(
          zones,
          event.data.zone_id,
          ctx.position,
          { $set: { status: 'verified', verified_at: event.data.at, verified_by: event.data.method } },
          { upsert: false },
        );
      case 'ZoneDeleted':
        await zones.deleteOne({ _id: event.data.zone_id });
        return;
      default:
        return;
    }
  },
});
