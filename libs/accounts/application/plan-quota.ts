import { Injectable } from '@nestjs/common';
import { KeyedLock } from '../../shared/keyed-lock';
import { notFound } from '../../shared/errors';
import { CountedLimit, limitReached, PLAN_LIMITS } from '../domain/plan-limits';
import { AccountDirectory } from './account-directory';

/**
 * Plan quotas on the write side. The plan comes from the account stream (write-side truth,
 * as for API keys and uptime monitors), not from a read model.
 *
 * Counted creations (zones, dynamic-DNS hosts) are admitted one at a time per account and
 * kind in this process: the count is read, the creation runs and waits for its read
 * model (read-your-writes), and only then may the next one count. So concurrent requests
 * on one process never pass the limit. Across API replicas each process may admit one
 * creation the others do not see yet: the overshoot is at most (replicas - 1), accepted
 * rather than a per-account counter stream that every creation and deletion would also
 * have to keep in step (docs/security/quotas-and-targets.md).
 */
@Injectable()
export class PlanQuota {
  private readonly lock = new KeyedLock();

  constructor(private readonly directory: AccountDirectory) {}

  async limitOf(accountId: number, what: CountedLimit): Promise<number> {
    const { state } = await this.directory.load(accountId);
    if (!state.exists) throw notFound('Account not found');
    return PLAN_LIMITS[state.plan][what];
  }

  /**
   * Runs `create` when `count()` (what the account holds now) is below the plan's limit;
   * else 403 `limit_reached`. Data above a limit lowered later is kept: only the new
   * creation is refused.
   */
  admit<T>(accountId: number, what: CountedLimit, count: () => Promise<number>, create: () => Promise<T>): Promise<T> {
    return this.lock.run(`${what}:${accountId}`, async () => {
      const limit = await this.limitOf(accountId, what);
      if ((await count()) >= limit) throw limitReached(what, limit);
      return create();
    });
  }
}
