import { authenticator } from 'otplib';
import * as QRCode from 'qrcode';

/** Seed, Authentication 4: SHA-1, 30-second step, 6 digits, previous/current/next step accepted. */
export const TOTP_PARAMS = { algorithm: 'sha1', digits: 6, period: 30, windowSteps: 1 } as const;
const SECRET_BYTES = 20;

/** A fresh 160-bit secret (RFC 4226's recommended length): 32 base32 characters. */
export const newTotpSecret = (): string => authenticator.generateSecret(SECRET_BYTES);

/**
 * The seed's form `otpauth://totp/<issuer>:<EMAIL>?secret=<SECRET>&issuer=<issuer>`, with
 * the issuer URL-encoded (it may hold spaces). The email stays readable: `@` is legal in
 * a URI path and authenticator apps show the label as given.
 */
export function provisioningUri(issuer: string, email: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(email).replace(/%40/g, '@')}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}`;
}

/** 256×256 PNG as a data URL, what the seed's `qr_code` carries. */
export const qrCodeDataUrl = (uri: string): Promise<string> =>
  QRCode.toDataURL(uri, { type: 'image/png', width: 256, margin: 2, errorCorrectionLevel: 'M' });

/**
 * The time step a 6-digit code matches within ±1 step of `at`, or null. `at` is the
 * injected clock's time, never the wall clock. Whether that step may still be used
 * (replay) is the decider's call, not this function's.
 */
export function matchTotpStep(secret: string, code: string, at: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  // A per-call clone: otplib's instance options are shared, and `epoch` differs per request.
  const checker = authenticator.clone({
    epoch: at.getTime(),
    step: TOTP_PARAMS.period,
    window: TOTP_PARAMS.windowSteps,
    digits: TOTP_PARAMS.digits,
    // The algorithm is otplib's default, SHA-1 (pinned by the oathtool spec, whose --totp default is SHA-1 too).
  });
  const delta = checker.checkDelta(code, secret);
  return delta === null ? null : Math.floor(at.getTime() / 1000 / TOTP_PARAMS.period) + delta;
}
