/**
 * The TOTP parameters checked against an independent implementation: oathtool
 * (Debian, installed by scripts/test-setup.sh), driven at fixed instants.
 */
import { execFileSync } from 'node:child_process';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { SecretBox } from '../../shared/crypto';
import { backupCodeKey, normaliseBackupCode, TwoFactorCrypto } from './two-factor.crypto';
import { matchTotpStep, newTotpSecret, provisioningUri, qrCodeDataUrl } from './totp';

const oathtool = (secret: string, at: Date): string =>
  execFileSync('oathtool', ['--totp', '-b', '-N', `@${Math.floor(at.getTime() / 1000)}`, secret], {
    encoding: 'utf8',
  }).trim();

describe('TOTP (SHA-1, 30 s, 6 digits, window ±1 step)', () => {
  const secret = newTotpSecret();
  // Ten seconds into a step, so each neighbour is a whole step away.
  const now = new Date(Math.floor(Date.parse('2024-05-01T12:00:00Z') / 30_000) * 30_000 + 10_000);
  const shifted = (steps: number) => new Date(now.getTime() + steps * 30_000);
  const stepOf = (d: Date) => Math.floor(d.getTime() / 30_000);

  it('makes 32-character base32 secrets (20 random bytes)', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
  });

  it('accepts oathtool codes of the previous, current and next step, and reports which step matched', () => {
    for (const steps of [-1, 0, 1]) {
      expect(matchTotpStep(secret, oathtool(secret, shifted(steps)), now)).toBe(stepOf(shifted(steps)));
    }
  });

  it('refuses codes two steps away either side', () => {
    for (const steps of [-2, 2]) expect(matchTotpStep(secret, oathtool(secret, shifted(steps)), now)).toBeNull();
  });

  it('judges by the time it is given, not the wall clock', () => {
    const longAgo = new Date('2001-09-09T01:46:40Z');
    expect(matchTotpStep(secret, oathtool(secret, longAgo), longAgo)).toBe(stepOf(longAgo));
    expect(matchTotpStep(secret, oathtool(secret, longAgo), now)).toBeNull();
  });

  it('matches nothing that is not six digits', () => {
    const code = oathtool(secret, now);
    expect(matchTotpStep(secret, code.slice(1), now)).toBeNull();
    expect(matchTotpStep(secret, `${code}0`, now)).toBeNull();
  });

  it('builds the seed provisioning URI with the issuer URL-encoded', () => {
    expect(provisioningUri('Account DNS', 'ann@example.com', 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP')).toBe(
      'otpauth://totp/Account%20DNS:ann@example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Account%20DNS',
    );
  });

  it('renders the QR code as a readable 256×256 PNG for random emails and secrets of every length', async () => {
    const rand = seededRandom(20260301);
    const pick = (alphabet: string, n: number) =>
      Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
    const randomEmail = () => {
      // RFC 5321 bounds: local part up to 64, whole address up to 254 characters.
      const local = pick('abcdefghijklmnopqrstuvwxyz0123456789._+-', 1 + Math.floor(rand() * 64));
      const domain = `${pick('abcdefghijklmnopqrstuvwxyz0123456789-', 1 + Math.floor(rand() * 60))}.example.com`;
      return `${local}@${domain}`.slice(0, 254);
    };
    const cases: Array<[string, string]> = [['ann@example.com', secret]];
    for (let length = 1; length <= 128; length++)
      cases.push([randomEmail(), pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', length)]);
    for (let i = 0; i < 40; i++) cases.push([randomEmail(), newTotpSecret()]);
    for (const [i, [email, s]] of cases.entries()) {
      const uri = provisioningUri('Account DNS', email, s);
      const url = await qrCodeDataUrl(uri);
      expect(url.startsWith('data:image/png;base64,')).toBe(true);
      const png = PNG.sync.read(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64'));
      expect([uri.length, png.width, png.height]).toEqual([uri.length, 256, 256]);
      // An independent reader finds the same URI in the pixels (a sample: reading is slow).
      if (i % 12 === 0) expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(uri);
    }
  });
});

/** mulberry32: reproducible "random" inputs, so a failure names an input that fails again. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('TwoFactorCrypto', () => {
  const crypto = new TwoFactorCrypto(new SecretBox('unit-test-key'), backupCodeKey('unit-test-key'));

  it('seals the secret so the sealed form does not contain it', () => {
    const sealed = crypto.sealSecret('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    expect(sealed).not.toContain('JBSWY3DP');
    expect(crypto.openSecret(sealed)).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
  });

  it('tokens carry their account and process, and only for their own purpose', () => {
    const { token, hash } = crypto.issueToken('setup', { accountId: 42, id: 'setup-x' });
    expect(crypto.readToken('setup', token)).toEqual({ accountId: 42, id: 'setup-x' });
    expect(crypto.readToken('login', token)).toBeNull();
    // A changed character inside the IV (16 base64url characters, no padding bits) must fail authentication.
    const tampered = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    expect(crypto.readToken('setup', tampered)).toBeNull();
    expect(crypto.readToken('setup', 'garbage')).toBeNull();
    expect(hash).toBe(crypto.tokenHash(token));
    expect(hash).not.toContain(token);
  });

  it('makes 10 distinct 8-character uppercase hex backup codes', () => {
    const codes = crypto.newBackupCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[0-9A-F]{8}$/);
  });

  it('hashes backup codes after normalising case and spaces, per account, under the server key', () => {
    expect(normaliseBackupCode(' ab12 cd-ef ')).toBe('AB12CDEF');
    const h = crypto.hashBackupCode(1, 'AB12CDEF');
    expect(crypto.hashBackupCode(1, 'ab12 cdef')).toBe(h);
    expect(crypto.hashBackupCode(2, 'AB12CDEF')).not.toBe(h);
    const otherServer = new TwoFactorCrypto(new SecretBox('other'), backupCodeKey('other'));
    expect(otherServer.hashBackupCode(1, 'AB12CDEF')).not.toBe(h);
  });
});
