import {
  EventLogDoc,
  EVENT_LOG_SOURCE_TYPES,
  EventLogSource,
  logEntryOf,
} from '../libs/email-auth-api/domain/event-log';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';

/**
 * One entry of the email-auth event log. The shape is the domain's (`EventLogDoc`, which
 * the log mapping in libs/email-auth-api/domain builds); this read model stores it as is.
 */
export type EmailAuthEventDoc = EventLogDoc;

export const EMAIL_AUTH_EVENTS = defineReadModel<EmailAuthEventDoc>('email_auth_events', 'email_auth_events', [
  { keys: { account_id: 1, occurred_at: -1 } },
]);

/**
 * email_auth_events: the email-auth API's event log (GET /api/v1/email-auth/events), one
 * document per logged fact, read newest first by (occurred_at, id).
 */
export const emailAuthEventsProjection = defineProjection<EventLogSource>({
  name: 'email_auth_events',
  // 2: report and alert facts joined the log; a rebuild lists the reports received before.
  version: 2,
  readModels: [EMAIL_AUTH_EVENTS],
  handles: EVENT_LOG_SOURCE_TYPES,
  async apply(event, ctx) {
    const entry = logEntryOf(event);
    // Replace by id: applying the same event twice leaves one entry.
    if (entry) await ctx.collection(EMAIL_AUTH_EVENTS).replaceOne({ _id: entry._id }, entry, { upsert: true });
  },
});
