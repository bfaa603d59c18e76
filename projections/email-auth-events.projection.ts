import { EVENT_LOG_SOURCE_TYPES, logEntryOf } from '../libs/email-auth-api/domain/event-log';
import { ProjectionDefinition } from '../libs/projection-engine/projection';

/**
 * email_auth_events: the email-auth API's event log (GET /api/v1/email-auth/events), one
 * document per logged fact, read newest first by (occurred_at, id).
 */
export const emailAuthEventsProjection: ProjectionDefinition = {
  name: 'email_auth_events',
  // 2: report and alert facts joined the log; a rebuild lists the reports received before.
  version: 2,
  collections: ['email_auth_events'],
  handles: EVENT_LOG_SOURCE_TYPES,
  async setup(ctx) {
    await ctx.collection('email_auth_events').createIndex({ account_id: 1, occurred_at: -1 });
  },
  async apply(raw, ctx) {
    const entry = logEntryOf(raw);
    // Replace by id: applying the same event twice leaves one entry.
    if (entry) await ctx.collection('email_auth_events').replaceOne({ _id: entry._id }, entry, { upsert: true });
  },
};
