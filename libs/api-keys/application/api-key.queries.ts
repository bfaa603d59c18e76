import { Inject, Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ApiKeyDoc, API_KEYS } from '../../../projections/api-keys.projection';
import { ACCOUNTS } from '../../../projections/accounts.projection';
import { KEY_USAGE_STORE, KeyUsageStore } from './key-usage.store';
import { API_ACCESS_MESSAGE, planAllowsApiKeys } from '../domain/api-key.decider';
import { forbidden } from '../../shared/errors';

/** The key object of the contract, without the key itself (it is shown only at creation). */
export function keyView(doc: Omit<ApiKeyDoc, '_id' | 'key_hash'>, lastUsedAt: string | null, withUser: boolean) {
  return {
    id: doc.id,
    ...(withUser ? { user_id: doc.account_id } : {}),
    name: doc.name,
    created_at: doc.created_at,
    last_used_at: lastUsedAt,
    is_active: doc.is_active,
    access: doc.access,
    expires_at: doc.expires_at,
    ...(doc.access === 'email_auth:read'
      ? { domains: doc.domains, failure_report_subjects: doc.failure_report_subjects }
      : {}),
  };
}

@Injectable()
export class ApiKeyQueries {
  constructor(
    private readonly projections: ProjectionEngine,
    @Inject(KEY_USAGE_STORE) private readonly usage: KeyUsageStore,
  ) {}

  private get keys() {
    return this.projections.readModel(API_KEYS);
  }

  /** Listing needs Pro/Elite (seed), or the Enterprise tier whose email-auth keys it shows. */
  async assertMayList(accountId: number): Promise<void> {
    const account = await this.projections.readModel(ACCOUNTS).findOne({ _id: accountId });
    if (account && (planAllowsApiKeys(account.plan) || account.email_auth?.tier === 'enterprise')) return;
    throw forbidden('plan_required', API_ACCESS_MESSAGE);
  }

  async byHash(hash: string): Promise<ApiKeyDoc | null> {
    return this.keys.findOne({ key_hash: hash });
  }

  async listActive(accountId: number) {
    const docs = await this.keys.find({ account_id: accountId, is_active: true }, { sort: { created_at: 1 } });
    const lastUsed = await this.usage.lastUsed(docs.map((d) => d.id));
    return docs.map((d) => keyView(d, lastUsed.get(d.id) ?? null, false));
  }
}
