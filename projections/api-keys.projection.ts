import { ApiKeyEvent, API_KEY_EVENT_TYPES, KeyAccess } from '../libs/api-keys/domain/api-key.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { guardedUpdate } from './guard';

/** An API key: its SHA-256 only, never the key. */
export interface ApiKeyDoc {
  _id: string;
  id: string;
  account_id: number;
  name: string;
  key_hash: string;
  access: KeyAccess;
  domains: string[];
  failure_report_subjects: boolean;
  expires_at: string | null;
  created_at: string;
  is_active: boolean;
  deactivated_at?: string;
}

export const API_KEYS = defineReadModel<ApiKeyDoc>('api_keys', 'api_keys', [
  { keys: { key_hash: 1 }, options: { unique: true } },
  { keys: { account_id: 1 } },
]);

/** api_keys: one document per key (hash only), for listing and for bearer authentication. */
export const apiKeysProjection = defineProjection<ApiKeyEvent>({
  name: 'api_keys',
  version: 1,
  readModels: [API_KEYS],
  handles: API_KEY_EVENT_TYPES,
  async apply(event, ctx) {
    const keys = ctx.collection(API_KEYS);
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
});
