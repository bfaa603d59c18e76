import { ApiKeyEvent, API_KEY_EVENT_TYPES } from '../libs/api-keys/domain/api-key.events';
import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { guardedUpdate } from './guard';

/** api_keys: one document per key (hash only), for listing and for bearer authentication. */
export const apiKeysProjection: ProjectionDefinition = {
  name: 'api_keys',
  version: 1,
  collections: ['api_keys'],
  handles: API_KEY_EVENT_TYPES,
  async setup(ctx) {
    await ctx.collection('api_keys').createIndex({ key_hash: 1 }, { unique: true });
    await ctx.collection('api_keys').createIndex({ account_id: 1 });
  },
  async apply(raw, ctx) {
    const keys = ctx.collection('api_keys');
    const event = raw as unknown as ApiKeyEvent;
    switch (event.type) {
      case 'ApiKeyCreated': {
        const d = event.data;
        return guardedUpdate(keys, d.key_id, ctx.position, {
          $set: {
            id: d.key_id,
            account_id: d.account_id,
            name: d.name,
            key_hash: d.key_hash,
            access: d.access,
            domains: d.domains,
            failure_report_subjects: d.failure_report_subjects,
            expires_at: d.expires_at,
            created_at: d.created_at,
            is_active: true,
          },
        });
      }
      case 'ApiKeyDeactivated':
        return guardedUpdate(keys, event.data.key_id, ctx.position, {
          $set: { is_active: false, deactivated_at: event.data.at },
        });
      default:
        return;
    }
  },
};
