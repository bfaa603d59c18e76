import { Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ACCOUNTS } from '../../../projections/accounts.projection';
import { AUDIT_EVENTS } from '../../../projections/audit.projection';
import { notFound, validationFailed } from '../../shared/errors';
import { auditEntryOf } from '../domain/audit-chain';

export interface AccountView {
  id: number;
  username: string;
  email: string;
  plan: string;
  email_auth: { tier: string; domains: string[] };
  two_factor_enabled: boolean;
  disabled: boolean;
  created_at: string;
}

const encodeCursor = (position: number) => Buffer.from(`p:${position}`).toString('base64url');
const decodeCursor = (cursor: string): number => {
  const m = /^p:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw validationFailed('cursor: not a cursor returned by this endpoint');
  return Number(m[1]);
};

@Injectable()
export class AccountQueries {
  constructor(private readonly projections: ProjectionEngine) {}

  async account(id: number): Promise<AccountView> {
    const doc = await this.projections.readModel(ACCOUNTS).findOne({ _id: id });
    if (!doc) throw notFound('Account not found');
    return {
      id: doc.id,
      username: doc.username,
      email: doc.email,
      plan: doc.plan,
      email_auth: doc.email_auth,
      two_factor_enabled: doc.two_factor_enabled,
      disabled: doc.disabled,
      created_at: doc.created_at,
    };
  }

  /** The account's state changes (see AUDITED_EVENT_TYPES), newest first; the cursor is the last position seen, so inserts do not shift pages. */
  async audit(accountId: number, cursor: string | undefined, limit: number) {
    const filter: Record<string, unknown> = { account_id: accountId };
    if (cursor) filter.position = { $lt: decodeCursor(cursor) };
    const docs = await this.projections
      .readModel(AUDIT_EVENTS)
      .find(filter, { sort: { position: -1 }, limit: limit + 1 });
    const page = docs.slice(0, limit);
    return {
      data: page.map((d) => auditEntryOf({ ...d, id: d._id })),
      next_cursor: docs.length > limit ? encodeCursor(page[page.length - 1].position) : null,
    };
  }
}
