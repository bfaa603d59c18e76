import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { checkAddress } from './uptime-read-model';
import { UPTIME_DOMAINS } from '../../../projections/uptime-domains.projection';

/** A domain as the scheduler sees it: whom it belongs to and the address to check (null: nothing to check). */
export interface TargetChange {
  domainId: number;
  accountId: number;
  monitored: boolean;
  ip: string | null;
}

/** Where the scheduler learns which domains to check. */
export interface TargetSource {
  /** Changes after `cursor` (0: everything) and the cursor to pass next time. */
  changesSince(cursor: number): Promise<{ changes: TargetChange[]; cursor: number }>;
}

/**
 * Targets from the uptime read model: documents whose `target_pos` (moved only by
 * address, monitoring and deletion events, never by checks) is past the cursor. The
 * read side is already fed by the durable subscription, so the scheduler needs no
 * subscription of its own and a start costs one query, not a replay of 31 days of checks.
 */
export class ReadModelTargets implements TargetSource {
  constructor(private readonly projections: ProjectionEngine) {}

  async changesSince(cursor: number) {
    const docs = await this.projections
      .readModel(UPTIME_DOMAINS)
      .find(
        { target_pos: { $gt: cursor } },
        { projection: { _id: 1, account_id: 1, monitor_enabled: 1, deleted: 1, ipv4: 1, ipv6: 1, target_pos: 1 } },
      );
    let next = cursor;
    const changes = docs.map((d) => {
      next = Math.max(next, d.target_pos);
      return {
        domainId: d._id,
        accountId: d.account_id,
        monitored: d.monitor_enabled && !d.deleted,
        ip: checkAddress(d),
      };
    });
    return { changes, cursor: next };
  }
}
