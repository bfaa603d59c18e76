import { AccountEvent } from '../libs/accounts/domain/account.events';
import { ProjectionDefinition } from '../libs/projection-engine/projection';
import { guardedUpdate } from './guard';

/** sessions: token hash → session, for authenticating session bearer tokens. */
export const sessionsProjection: ProjectionDefinition = {
  name: 'sessions',
  version: 1,
  collections: ['sessions'],
  handles: ['SessionStarted', 'SessionEnded', 'PasswordChanged', 'AccountDisabled'],
  async setup(ctx) {
    await ctx.collection('sessions').createIndex({ session_id: 1 }, { unique: true });
    await ctx.collection('sessions').createIndex({ account_id: 1 });
  },
  async apply(raw, ctx) {
    const sessions = ctx.collection('sessions');
    const event = raw as unknown as AccountEvent;
    const accountId = raw.metadata.account_id;
    switch (event.type) {
      case 'SessionStarted':
        return guardedUpdate(sessions, event.data.token_hash, ctx.position, {
          $set: {
            session_id: event.data.session_id,
            account_id: accountId,
            started_at: event.data.started_at,
            expires_at: event.data.expires_at,
            active: true,
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
        await sessions.updateMany({ account_id: accountId }, { $set: { active: false } });
        return;
      default:
        return;
    }
  },
};
