import { Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projections/projection-engine';

export interface TwoFactorStatus {
  enabled: boolean;
  backup_codes_remaining: number;
}

export interface PendingSetupDoc {
  _id: number;
  account_id: number;
  pending_setup: { setup_id: string; expires_at: string } | null;
}

@Injectable()
export class TwoFactorQueries {
  constructor(private readonly projections: ProjectionEngine) {}

  private get docs() {
    return this.projections.collection('two_factor', 'two_factor');
  }

  async status(accountId: number): Promise<TwoFactorStatus> {
    const doc = await this.docs.findOne({ _id: accountId });
    return { enabled: doc?.enabled === true, backup_codes_remaining: doc?.enabled ? (doc.backup_codes_remaining ?? 0) : 0 };
  }

  /** Pending setups whose deadline is at or before `now` (ISO strings of one format sort by time). */
  async setupsDueBy(now: Date, limit: number): Promise<PendingSetupDoc[]> {
    return (await this.docs.find(
      { 'pending_setup.expires_at': { $lte: now.toISOString() } },
      { sort: { 'pending_setup.expires_at': 1 }, limit },
    )) as PendingSetupDoc[];
  }
}
