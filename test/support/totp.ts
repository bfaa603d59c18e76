import { execFileSync } from 'node:child_process';
import type { HttpClient } from './http-client';

/** The TOTP code oathtool (Debian, an implementation apart from the service's) computes for `secret` at `at`. */
export const totpAt = (secret: string, at: Date = new Date()): string =>
  execFileSync('oathtool', ['--totp', '-b', '-N', `@${Math.floor(at.getTime() / 1000)}`, secret], {
    encoding: 'utf8',
  }).trim();

/**
 * Turns two-factor authentication on for the session `token` with a code for `at` (the app's clock):
 * the secret and the backup codes the service showed once.
 */
export async function enableTwoFactor(
  http: HttpClient,
  token: string,
  at: Date = new Date(),
): Promise<{ secret: string; backup_codes: string[] }> {
  const setup = await http.post('/2fa/setup', undefined, token);
  if (setup.status !== 200) throw new Error(`2fa setup: ${setup.status} ${setup.text}`);
  const { secret, setup_token } = setup.body;
  const verify = await http.post('/2fa/verify', { setup_token, code: totpAt(secret, at) }, token);
  if (verify.status !== 200) throw new Error(`2fa verify: ${verify.status} ${verify.text}`);
  return { secret, backup_codes: verify.body.backup_codes };
}
