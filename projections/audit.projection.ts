import { ProjectionDefinition } from '../libs/projections/projection';
import { redact } from '../libs/shared/redact';

/**
 * audit_events: every event that names its owning account, newest-first per account,
 * for `/account/audit`. Secrets (hashes, sealed secrets) are redacted on the way in.
 */
export const auditProjection: ProjectionDefinition = {
  name: 'audit',
  version: 1,
  collections: ['audit_events'],
  async setup(ctx) {
    await ctx.collection('audit_events').createIndex({ account_id: 1 });
    // The audit page (newest first, by position, per account) reads only its page, however long the log.
    await ctx.collection('audit_events').createIndex({ account_id: 1, position: -1 });
  },
  async apply(event, ctx) {
    const accountId = event.metadata.account_id;
    if (accountId === undefined) return;
    await ctx.collection('audit_events').replaceOne(
      { _id: event.id },
      {
        _id: event.id,
        account_id: accountId,
        position: ctx.position,
        stream: event.streamId,
        revision: event.revision,
        type: event.type,
        occurred_at: event.created.toISOString(),
        actor: event.metadata.actor ?? null,
        source_ip: event.metadata.source_ip ?? null,
        correlation_id: event.metadata.correlation_id ?? null,
        data: redact(event.data),
      },
      { upsert: true },
    );
  },
};
