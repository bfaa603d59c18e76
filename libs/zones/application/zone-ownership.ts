import { Inject, Injectable } from '@nestjs/common';
import { EventMetadata } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZONES } from '../../../projections/zones.projection';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { validationFailed } from '../../shared/errors';
import { zoneDecider } from '../domain/zone.decider';
import { zoneStream } from '../domain/zone.events';
import {
  claimsAgainst,
  findOwnershipConflicts,
  OVERLAP_ALLOWANCES_STREAM,
  OverlapAllowances,
  OwnershipConflict,
  unallowedServiceConflicts,
  zoneAncestors,
  zoneConflict,
  ZoneOverlapAllowed,
  zoneTreeDecider,
  zoneTreeStream,
} from '../domain/zone-ownership';

/** A tree claim whose zone stream never appeared (a crash mid-import) stops counting after this. */
const ORPHAN_AFTER_MS = 60_000;

export interface HolderLookup {
  /** The account holding a zone of exactly this name, or null (the name reservations). */
  (name: string): Promise<{ account_id: number } | null>;
}

/**
 * Applies the ownership rules on the write side: the service's own names, then the claim
 * tree (race-safe, see zone-ownership.ts), plus the zones imported before the tree existed
 * (ancestors through the name reservations, descendants through the zones read model).
 */
@Injectable()
export class ZoneOwnership {
  constructor(
    private readonly streams: EventStreams,
    private readonly projections: ProjectionEngine,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async allowances(): Promise<OverlapAllowances> {
    return OverlapAllowances.of(
      (await this.streams.load(OVERLAP_ALLOWANCES_STREAM, { initialState: () => null, evolve: () => null })).events,
    );
  }

  async allowOverlap(zone: string, accountId: number, metadata: EventMetadata): Promise<ZoneOverlapAllowed['data']> {
    if (this.config.ddnsZones.includes(zone))
      throw validationFailed(`zone: ${zone} is a dynamic-DNS zone of the service; no account can hold it`);
    const data = { zone, account_id: accountId, at: this.clock.now().toISOString() };
    const { position } = await this.streams.append(
      OVERLAP_ALLOWANCES_STREAM,
      [{ type: 'ZoneOverlapAllowed', data }],
      'any',
      metadata,
    );
    // Read-your-writes for the account's audit log, like every other command.
    await this.projections.waitFor(position, 5000, ['audit']);
    return data;
  }

  /** Refuses (409 zone_conflict) a zone that is equal to, under or above a DDNS zone or a name-server host. */
  checkServiceNames(zone: string, accountId: number, allowances: OverlapAllowances): void {
    const [first] = unallowedServiceConflicts(zone, accountId, this.config, allowances);
    if (first) throw zoneConflict(first);
  }

  /**
   * Claims `zone` in its tree stream and each ancestor's, refusing a conflict with another
   * account's zone; on a refusal the claims already written are taken back. `holder` reads
   * the name reservations (zones imported before the claim tree existed).
   */
  async claim(
    zone: string,
    zoneId: string,
    accountId: number,
    allowances: OverlapAllowances,
    holder: HolderLookup,
    metadata: EventMetadata,
  ): Promise<void> {
    const claimant = { zone, account_id: accountId };
    const written: string[] = [];
    try {
      for (const above of zoneAncestors(zone)) {
        const held = await holder(above);
        if (
          held &&
          held.account_id !== accountId &&
          !allowances.pairAllowed(claimant, { zone: above, account_id: held.account_id })
        ) {
          throw zoneConflict({
            zone,
            account_id: accountId,
            relation: 'under',
            with: { kind: 'zone', name: above, account_id: held.account_id },
          });
        }
      }
      const below = await this.projections.readModel(ZONES).find({ ancestors: zone });
      const other = below.find(
        (z) =>
          z.account_id !== accountId && !allowances.pairAllowed(claimant, { zone: z.name, account_id: z.account_id }),
      );
      if (other)
        throw zoneConflict({
          zone,
          account_id: accountId,
          relation: 'above',
          with: { kind: 'zone', name: other.name, account_id: other.account_id },
        });
      for (const tree of [zone, ...zoneAncestors(zone)]) {
        const settled = await this.settledClaims(tree, zone, accountId, allowances);
        const at = this.clock.now().toISOString();
        written.push(tree);
        await this.streams.handle(
          zoneTreeStream(tree),
          zoneTreeDecider,
          { type: 'Claim', tree, zone, zoneId, accountId, settled, at },
          metadata,
        );
      }
    } catch (e) {
      await this.release(written, zoneId, metadata);
      throw e;
    }
  }

  /** Takes back a zone's claims (on delete, or after a refused import). */
  async release(trees: string[], zoneId: string, metadata: EventMetadata): Promise<void> {
    for (const tree of trees)
      await this.streams.handle(zoneTreeStream(tree), zoneTreeDecider, { type: 'Release', tree, zoneId }, metadata);
  }

  releaseAll(zone: string, zoneId: string, metadata: EventMetadata): Promise<void> {
    return this.release([zone, ...zoneAncestors(zone)], zoneId, metadata);
  }

  /** Claims that stand against the zone on paper but do not count: allowed, or of a zone that no longer lives. */
  private async settledClaims(
    tree: string,
    zone: string,
    accountId: number,
    allowances: OverlapAllowances,
  ): Promise<string[]> {
    const { state } = await this.streams.load(zoneTreeStream(tree), zoneTreeDecider);
    const settled: string[] = [];
    for (const [id, claim] of claimsAgainst(state, tree, zone, accountId)) {
      if (allowances.pairAllowed({ zone, account_id: accountId }, claim) || !(await this.lives(id, claim.at)))
        settled.push(id);
    }
    return settled;
  }

  private async lives(zoneId: string, claimedAt: string): Promise<boolean> {
    const { state, events } = await this.streams.load(zoneStream(zoneId), zoneDecider);
    if (events.length === 0) return this.clock.now().getTime() - Date.parse(claimedAt) < ORPHAN_AFTER_MS;
    return state.status === 'pending_verification' || state.status === 'verified';
  }

  /** Existing data that breaks the rules (imported before they were enforced): each conflicting pair once. */
  async conflicts(): Promise<OwnershipConflict[]> {
    const zones = await this.projections.readModel(ZONES).find({});
    const holdings = zones.map((z) => ({ zone: z.name, account_id: z.account_id, created_at: z.created_at }));
    return findOwnershipConflicts(holdings, this.config, await this.allowances());
  }
}
