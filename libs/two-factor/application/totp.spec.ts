/**
 * The TOTP parameters checked against an independent implementation: oathtool
 * (Debian, installed by scripts/test-setup.sh), driven at fixed instants.
 */
import { execFileSync } from 'node:child_process';
import { SecretBox } from '../../shared/crypto';
import { backupCodeKey, normaliseBackupCode, TwoFactorCrypto } from './two-factor.crypto';
import { matchTotpStep, newTotpSecret, provisioningUri, qrCodeDataUrl } from './totp';

const oathtool = (secret: string, at: Date): string =>
  execFileSync('oathtool', ['--totp', '-b', '-N', `@${Math.floor(at.getTime() / 1000)}`, secret], { encoding: 'utf8' }).trim();

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

  it('renders the QR code as a 256×256 PNG data URL', async () => {
    const url = await qrCodeDataUrl(provisioningUri('Account DNS', 'ann@example.com', secret));
    expect(url.startsWith('data:image/png;base64,')).toBe(true);
    const png = Buffer.from(url.slice('data:image/png;base64,'.length), 'base64');
    // IHDR: width and height are the first two big-endian words after the 16-byte signature+chunk header.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
  });
});

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
