import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../../auth/principal';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { AUDIT_EVENTS, auditEntryOfEvent } from '../../../projections/audit.projection';
import { AuditEntry } from '../domain/audit-chain';
import { AuditEntryIdsDto } from './audit-admin.dto';

/** What the store holds for one exported entry's id. */
export interface StoredAuditEntry {
  id: string;
  /** The account the event belongs to; null when the store has no audited event of that id. */
  account_id: number | null;
  /** The entry rebuilt from the event in the event store (null when absent there). */
  entry: AuditEntry | null;
  /** The chain as the audit read model holds it. */
  prev_hash: string | null;
  hash: string | null;
}

/**
 * `POST /admin/audit/entries` (operator): for `audit:verify` (apps/cli/audit-verify.ts), each
 * id's entry as rebuilt from the event store, with the chain links the read model holds.
 */
@AdminOnly()
@ApiTags('admin')
@Controller('admin/audit')
export class AuditAdminController {
  constructor(
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Post('entries')
  @HttpCode(200)
  @ApiOperation({ summary: 'The store’s version of audit entries by id (at most 1,000), for audit:verify' })
  async entries(@Body() body: AuditEntryIdsDto): Promise<{ entries: StoredAuditEntry[] }> {
    const docs = await this.projections.readModel(AUDIT_EVENTS).find({ _id: { $in: body.ids } });
    const byId = new Map(docs.map((d) => [d._id, d]));
    const entries: StoredAuditEntry[] = [];
    for (const id of body.ids) {
      const doc = byId.get(id);
      if (!doc) {
        entries.push({ id, account_id: null, entry: null, prev_hash: null, hash: null });
        continue;
      }
      // The read model names where the event is; the event itself is read from the store, so a changed document shows.
      const [event] = await this.store.readStream(doc.stream, { fromRevision: doc.revision, maxCount: 1 });
      const fromStore = event !== undefined && event.id === id ? event : null;
      entries.push({
        id,
        account_id: fromStore ? (fromStore.metadata.account_id ?? null) : null,
        entry: fromStore ? auditEntryOfEvent(fromStore) : null,
        prev_hash: doc.prev_hash,
        hash: doc.hash,
      });
    }
    return { entries };
  }
}
