import { Inject, Injectable } from '@nestjs/common';
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { SECRET_BOX, SecretBox, sha256Hex } from '../../shared/crypto';
import { BACKUP_CODE_COUNT } from '../domain/two-factor.decider';

export const BACKUP_CODE_KEY = Symbol('BACKUP_CODE_KEY');

/**
 * The HMAC key for backup-code hashes, derived from SECRET_KEY with its own HKDF label.
 * A backup code has only 32 bits, so a plain SHA-256 of it could be reversed from the
 * event log in seconds; keyed with a server secret it cannot.
 */
export const backupCodeKey = (secretKey: string): Buffer =>
  Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), Buffer.alloc(0), 'account-dns:backup-codes', 32));

export type TokenKind = 'setup' | 'login';

/** What a setup or login token says once opened: whose it is and which process it belongs to. */
export interface TokenClaims {
  accountId: number;
  id: string;
}

/** Seed: backup codes are 8 uppercase hexadecimal characters; input ignores case, spaces (and dashes). */
export const normaliseBackupCode = (input: string): string => input.replace(/[\s-]+/g, '').toUpperCase();
export const isBackupCodeShape = (code: string): boolean => /^[0-9A-F]{8}$/.test(code);
/** TOTP input: six digits, spaces ignored ("123 456" as some apps display it). */
export const normaliseTotpCode = (input: string): string => input.replace(/\s+/g, '');

/**
 * Every secret-bearing value of 2FA passes through here: the TOTP secret is sealed
 * (AES-256-GCM under SECRET_KEY), tokens are sealed claims whose SHA-256 goes into
 * events, backup codes are HMACed. Nothing readable reaches the event store.
 */
@Injectable()
export class TwoFactorCrypto {
  constructor(
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(BACKUP_CODE_KEY) private readonly backupKey: Buffer,
  ) {}

  sealSecret(secret: string): string {
    return this.box.seal(secret, 'totp');
  }

  openSecret(sealed: string): string {
    return this.box.openString(sealed, 'totp');
  }

  /**
   * A token that names its account and process, sealed so it cannot be forged or
   * read: the verify step can tell a token issued to another user (403) from a
   * made-up one (400) without any lookup, and login needs no token index.
   */
  issueToken(kind: TokenKind, claims: TokenClaims): { token: string; hash: string } {
    const token = this.box.seal(
      JSON.stringify({ a: claims.accountId, i: claims.id, n: randomBytes(16).toString('base64url') }),
      `2fa-${kind}-token`,
    );
    return { token, hash: sha256Hex(token) };
  }

  readToken(kind: TokenKind, token: string): TokenClaims | null {
    try {
      const claims = JSON.parse(this.box.openString(token, `2fa-${kind}-token`)) as { a?: unknown; i?: unknown };
      if (!Number.isInteger(claims.a) || typeof claims.i !== 'string') return null;
      return { accountId: claims.a as number, id: claims.i };
    } catch {
      // Wrong purpose, tampered or not one of ours at all: the same answer for each.
      return null;
    }
  }

  tokenHash(token: string): string {
    return sha256Hex(token);
  }

  newBackupCodes(): string[] {
    const codes = new Set<string>();
    while (codes.size < BACKUP_CODE_COUNT) codes.add(randomBytes(4).toString('hex').toUpperCase());
    return [...codes];
  }

  /** Bound to the account, so one account's hash says nothing about another's codes. */
  hashBackupCode(accountId: number, code: string): string {
    return createHmac('sha256', this.backupKey)
      .update(`${accountId}:${normaliseBackupCode(code)}`)
      .digest('hex');
  }
}
