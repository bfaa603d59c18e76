import { Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { TWO_FACTOR } from '../../../projections/two-factor.projection';

export interface TwoFactorStatus {
  enabled: boolean;
  backup_codes_remaining: number;
}

@Injectable()
export class TwoFactorQueries {
  constructor(private readonly projections: ProjectionEngine) {}

  private get docs() {
    return this.projections.readModel(TWO_FACTOR);
  }

  async status(accountId: number): Promise<TwoFactorStatus> {
    const doc = await this.docs.findOne({ _id: accountId });
    return {
      enabled: doc?.enabled === true,
      backup_codes_remaining: doc?.enabled ? (doc.backup_codes_remaining ?? 0) : 0,
    };
  }
}
