import { Injectable } from '@nestjs/common';
import { Authenticator } from '../../auth/authenticator';
import { Principal } from '../../auth/principal';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ACCOUNTS } from '../../../projections/accounts.projection';
import { DOMAINS } from '../../../projections/domains.projection';
import { AppError } from '../../shared/errors';
import { param, Params } from '../domain/ddns-request';

/** Any refusal of the credentials: answered `badauth`, 401, with a Basic challenge. */
export class BadAuth extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BadAuth';
  }
}

export interface DdnsIdentity {
  principal: Principal;
  /** The Basic username when it named one of the account's hosts: the default `hostname`. */
  hostFromUsername: string | null;
}

interface Credentials {
  username: string;
  key: string;
}

const BASIC = /^basic +([A-Za-z0-9+/=]+)$/i;
const BEARER = /^bearer +(\S+)$/i;

/** Basic, then Bearer, then `username`/`password` parameters (ddns.md, Authentication). */
export function credentialsOf(authorization: string | undefined, params: Params): Credentials | null {
  if (typeof authorization === 'string' && authorization.trim() !== '') {
    const basic = BASIC.exec(authorization.trim());
    if (basic) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return null;
      return { username: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
    }
    const bearer = BEARER.exec(authorization.trim());
    return bearer ? { username: '', key: bearer[1] } : null;
  }
  const key = param(params, 'password');
  return key ? { username: param(params, 'username') ?? '', key } : null;
}

/**
 * Authenticates a DDNS client: only an account-access key of a Pro/Elite account works,
 * and a username, when given, must name that same account (its username or email) or one
 * of its hosts. The key's last use is recorded only once all of this has passed.
 */
@Injectable()
export class DdnsAuthenticator {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly projections: ProjectionEngine,
  ) {}

  async authenticate(authorization: string | undefined, params: Params): Promise<DdnsIdentity> {
    const creds = credentialsOf(authorization, params);
    if (!creds || !creds.key) throw new BadAuth('no credentials');
    let principal: Principal;
    try {
      principal = await this.authenticator.fromApiKey(creds.key);
      if (principal.access !== 'account') throw new BadAuth('not an account key');
      await this.authenticator.assertAccountKeyAllowed(principal);
    } catch (e) {
      throw authRefusal(e);
    }
    const username = creds.username.trim().toLowerCase();
    // Awaited only when it reads (a host name, or an account's names not read with the key): each update passes here.
    const checked = username === '' ? null : this.checkUsername(username, principal);
    const hostFromUsername = checked instanceof Promise ? await checked : checked;
    await this.authenticator.recordUse(principal);
    return { principal, hostFromUsername };
  }

  private checkUsername(username: string, principal: Principal): string | null | Promise<string | null> {
    const accountId = principal.accountId;
    // Usernames are [a-z0-9_-] and emails hold an "@": anything else with a dot is a host name.
    if (username.includes('.') && !username.includes('@')) {
      const fqdn = username.replace(/\.$/, '');
      return this.projections
        .readModel(DOMAINS)
        .findOne({ fqdn })
        .then((host) => {
          if (host?.account_id !== accountId) throw new BadAuth('username names a host of another account');
          return fqdn;
        });
    }
    const field = username.includes('@') ? 'email' : 'username';
    // The key's authentication already read the account's names.
    if (principal.accountNames) {
      if (principal.accountNames[field] !== username) throw new BadAuth('username names another account');
      return null;
    }
    return this.projections
      .readModel(ACCOUNTS)
      .findOne({ [field]: username })
      .then((account) => {
        if (account?._id !== accountId) throw new BadAuth('username names another account');
        return null;
      });
  }
}

/** Invalid, expired or inactive keys (401) and keys of a downgraded plan (403) are all `badauth`. */
function authRefusal(e: unknown): unknown {
  return e instanceof AppError && (e.status === 401 || e.status === 403) ? new BadAuth(e.message) : e;
}
