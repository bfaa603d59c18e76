import * as nodeCrypto from 'node:crypto';
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (p: string, s: Buffer, len: number, o: object) => Promise<Buffer>;

/**
 * Hex SHA-256 of a string. `crypto.hash` (Node ≥ 20.12) is the one-shot form, about three
 * times faster than a Hash object; it runs on every API-key and session authentication.
 */
export const sha256Hex: (value: string) => string =
  typeof nodeCrypto.hash === 'function'
    ? (value) => nodeCrypto.hash('sha256', value, 'hex')
    : (value) => createHash('sha256').update(value, 'utf8').digest('hex');

/** Compares two strings without an early exit on the first differing byte. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ba.length !== bb.length) {
    timingSafeEqual(ba, ba);
    return false;
  }
  return timingSafeEqual(ba, bb);
}

export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

// scrypt cost: N=2^15 takes ~50 ms here, enough to slow guessing without slowing logins.
const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password.normalize('NFKC'), salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt') return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** A hash to verify against when the user does not exist, so both paths take the same time. */
let dummyHash: Promise<string> | null = null;
export const dummyPasswordHash = (): Promise<string> => (dummyHash ??= hashPassword(randomToken()));

/**
 * AES-256-GCM box for secrets at rest (TOTP secrets, private keys). Each purpose gets
 * its own key derived from SECRET_KEY with HKDF, so one leaked ciphertext class says
 * nothing about another. Output: `v1.<iv>.<tag>.<ciphertext>` in base64url.
 */
export class SecretBox {
  private readonly master: Buffer;

  constructor(secretKey: string) {
    this.master = createHash('sha256').update(secretKey, 'utf8').digest();
  }

  private key(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.master, Buffer.alloc(0), `account-dns:${purpose}`, 32));
  }

  seal(plaintext: string | Buffer, purpose: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key(purpose), iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(
      '.',
    );
  }

  open(sealed: string, purpose: string): Buffer {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1') throw new Error('unknown sealed-box version');
    const decipher = createDecipheriv('aes-256-gcm', this.key(purpose), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  }

  openString(sealed: string, purpose: string): string {
    return this.open(sealed, purpose).toString('utf8');
  }
}

export const SECRET_BOX = Symbol('SECRET_BOX');

/** SECRET_KEY from the environment, or one generated once into DATA_DIR and reused. */
export function resolveSecretKey(configured: string | null, dataDir: string): string {
  if (configured) return configured;
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
