import { Inject, Injectable } from '@nestjs/common';
import { SESSIONS, SessionDoc } from '../../../projections/sessions.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { notFound } from '../../shared/errors';

/** One active session as `GET /account/sessions` lists it (never its token or token hash). */
export interface SessionView {
  id: string;
  started_at: string;
  expires_at: string;
  /** The address the session was started from, where recorded. */
  source_ip: string | null;
  /** The session that asks. */
  current: boolean;
}

export const SESSION_NOT_FOUND = 'Session not found';

/** The account's active sessions (issue 27: a list with revoke), from the sessions read model. */
@Injectable()
export class SessionList {
  constructor(
    private readonly projections: ProjectionEngine,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  private active(d: SessionDoc, now: string): boolean {
    return d.active && d.expires_at > now;
  }

  async list(accountId: number, currentSessionId: string | undefined): Promise<{ sessions: SessionView[] }> {
    const now = this.clock.now().toISOString();
    const docs = await this.projections.readModel(SESSIONS).find({ account_id: accountId });
    const sessions = docs
      .filter((d) => this.active(d, now))
      .sort((a, b) => (a.started_at < b.started_at ? 1 : -1))
      .map((d) => ({
        id: d.session_id,
        started_at: d.started_at,
        expires_at: d.expires_at,
        source_ip: d.source_ip ?? null,
        current: d.session_id === currentSessionId,
      }));
    return { sessions };
  }

  /** 404 unless `sessionId` is an active session of the account (another account's sessions do not exist for it). */
  async assertActive(accountId: number, sessionId: string): Promise<void> {
    const doc = await this.projections.readModel(SESSIONS).findOne({ session_id: sessionId });
    if (!doc || doc.account_id !== accountId || !this.active(doc, this.clock.now().toISOString()))
      throw notFound(SESSION_NOT_FOUND);
  }
}
