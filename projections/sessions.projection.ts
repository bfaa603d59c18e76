import {
  AccountDeleted,
  AccountDisabled,
  PasswordChanged,
  SessionEnded,
  SessionStarted,
} from '../libs/accounts/domain/account.events';
import { defineProjection, defineReadModel } from '../libs/projection-engine/read-model';
import { guardedUpdate } from './guard';

/** A session, under the SHA-256 of its bearer token (the token itself is never stored). */
export interface SessionDoc {
  _id: string;
  session_id: string;
  account_id: number;
  started_at: string;
  expires_at: string;
  active: boolean;
  /** Where the session was started from (for the sessions list); absent on sessions projected before it was kept. */
  source_ip?: string | null;
}

export const SESSIONS = defineReadModel<SessionDoc>('sessions', 'sessions', [
  { keys: { session_id: 1 }, options: { unique: true } },
  { keys: { account_id: 1 } },
]);

/** sessions: token hash → session, for authenticating session bearer tokens. */
export const sessionsProjection = defineProjection<
  SessionStarted | SessionEnded | PasswordChanged | AccountDisabled | AccountDeleted
>({
  name: 'sessions',
  version: 1,
  readModels: [SESSIONS],
  handles: ['SessionStarted', 'SessionEnded', 'PasswordChanged', 'AccountDisabled', 'AccountDeleted'],
  async apply(event, ctx) {
    const sessions = ctx.collection(SESSIONS);
    const accountId = event.metadata.account_id;
    switch (event.type) {
      case 'SessionStarted':
        return guardedUpdate(sessions, event.data.token_hash, ctx.position, {
          $set: {
            session_id: event.data.session_id,
            account_id: accountId,
            started_at: event.data.started_at,
            expires_at: event.data.expires_at,
            active: true,
            source_ip: event.metadata.source_ip ?? null,
          },
        });
      case 'SessionEnded':
        await sessions.updateOne({ session_id: event.data.session_id }, { $set: { active: false } });
        return;
      case 'PasswordChanged':
        await sessions.updateMany(
          { account_id: accountId, session_id: { $ne: event.data.kept_session_id } },
          { $set: { active: false } },
        );
        return;
      case 'AccountDisabled':
      case 'AccountDeleted':
        await sessions.updateMany({ account_id: accountId }, { $set: { active: false } });
        return;
      default:
        return;
    }
  },
});
