import { Inject, Injectable } from '@nestjs/common';
import type { CredentialVerifier } from '../../auth/credential.port';
import type { Principal } from '../../auth/principal';
import { SESSIONS } from '../../../projections/sessions.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { constantTimeEqual, sha256Hex } from '../../shared/crypto';
import { unauthorized } from '../../shared/errors';
import { AccountStandings } from './account-standing';
import { SESSION_TOKEN_PREFIX } from './session-issuer';

/** Session tokens (`st_…`): looked up by SHA-256, compared in constant time, refused once expired, ended or the account disabled. */
@Injectable()
export class SessionCredentials implements CredentialVerifier {
  readonly prefix = SESSION_TOKEN_PREFIX;

  constructor(
    private readonly projections: ProjectionEngine,
    private readonly accounts: AccountStandings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async verify(token: string, invalidMessage: string): Promise<Principal> {
    const hash = sha256Hex(token);
    const session = await this.projections.readModel(SESSIONS).findOne({ _id: hash });
    if (!session || !constantTimeEqual(session._id, hash) || !session.active) throw unauthorized(invalidMessage);
    if (Date.parse(session.expires_at) <= this.clock.now().getTime()) throw unauthorized(invalidMessage);
    const account = await this.accounts.of(session.account_id);
    if (!account || account.disabled) throw unauthorized(invalidMessage);
    return { accountId: session.account_id, via: 'session', sessionId: session.session_id, access: 'account' };
  }
}
