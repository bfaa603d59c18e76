import { Injectable } from '@nestjs/common';
import { PlanQuota } from '../../accounts/application/plan-quota';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZONES } from '../../../projections/zones.projection';

/**
 * The zone quotas of contract §16: zones per account (counted here, admitted one at a time
 * per account, see PlanQuota) and records per zone (the figure handed to the zone decider,
 * which counts on the zone stream itself, so that one is exact under concurrency).
 */
@Injectable()
export class ZoneQuota {
  constructor(
    private readonly quota: PlanQuota,
    private readonly projections: ProjectionEngine,
  ) {}

  /** Imports a zone when the plan has room for one more (403 `limit_reached` otherwise). */
  admitZone<T>(accountId: number, importZone: () => Promise<T>): Promise<T> {
    const count = () => this.projections.readModel(ZONES).countDocuments({ account_id: accountId });
    return this.quota.admit(accountId, 'zones', count, importZone);
  }

  recordLimit(accountId: number): Promise<number> {
    return this.quota.limitOf(accountId, 'recordsPerZone');
  }
}
