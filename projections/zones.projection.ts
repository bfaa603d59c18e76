import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { applyRRsets } from '../libs/zones/domain/rrsets';
import { RRset, rrsetKey, verificationRecordName, ZoneEvent, ZONE_EVENT_TYPES } from '../libs/zones/domain/zone.events';
import { guardedUpdate } from './guard';

/** zones: one document per live imported zone, with its RRsets, for the zones API and the fqdn rules. */
export const zonesProjection: ProjectionDefinition = {
  name: 'zones',
  version: 2, // 2: verified_by (how the zone was verified: the email-auth API's hosting mode)
  collections: ['zones'],
  handles: ZONE_EVENT_TYPES,
  async setup(ctx) {
    await ctx.collection('zones').createIndex({ account_id: 1 });
    await ctx.collection('zones').createIndex({ name: 1 });
  },
  async apply(raw, ctx) {
    const zones = ctx.collection('zones');
    const event = raw as unknown as ZoneEvent;
    switch (event.type) {
      case 'ZoneImported': {
        const d = event.data;
        return guardedUpdate(zones, d.zone_id, ctx.position, {
          $set: {
            id: d.zone_id,
            account_id: d.account_id,
            name: d.name,
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
        const current = new Map<string, RRset>((doc.rrsets as RRset[]).map((r) => [rrsetKey(r), r]));
        const rrsets = [...applyRRsets(current, event.data.rrsets).values()];
        return guardedUpdate(zones, event.data.zone_id, ctx.position, { $set: { rrsets } }, { upsert: false });
      }
      case 'ZoneVerified':
        return guardedUpdate(zones, event.data.zone_id, ctx.position, { $set: { status: 'verified', verified_at: event.data.at, verified_by: event.data.method } }, { upsert: false });
      case 'ZoneDeleted':
        await zones.deleteOne({ _id: event.data.zone_id });
        return;
      default:
        return;
    }
  },
};
