import { authenticator } from 'otplib';
import { PNG } from 'pngjs';
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

export const QR_CODE_PIXELS = 256;
/** ISO/IEC 18004's quiet zone: four light modules on every side. */
const QUIET_ZONE_MODULES = 4;

/**
 * Exactly 256×256 PNG as a data URL, what the seed's `qr_code` carries. qrcode's own
 * `width` option divides 256 by the module count into a fractional scale and floors the
 * product, so some symbol sizes came out 255×255 with uneven modules. Here every module
 * is a whole number of pixels (the largest scale that leaves the quiet zone) and the
 * pixels left over widen the light border, so the size never depends on the input.
 */
export function qrCodeDataUrl(uri: string): Promise<string> {
  const { modules } = QRCode.create(uri, { errorCorrectionLevel: 'M' });
  const scale = Math.floor(QR_CODE_PIXELS / (modules.size + 2 * QUIET_ZONE_MODULES));
  if (scale < 1) throw new Error(`QR symbol of ${modules.size} modules does not fit ${QR_CODE_PIXELS} pixels`);
  const offset = Math.floor((QR_CODE_PIXELS - modules.size * scale) / 2);
  const png = new PNG({ width: QR_CODE_PIXELS, height: QR_CODE_PIXELS, colorType: 0, inputColorType: 0, bitDepth: 8 });
  png.data = Buffer.alloc(QR_CODE_PIXELS * QR_CODE_PIXELS, 0xff);
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (!modules.get(row, col)) continue;
      for (let y = 0; y < scale; y++) {
        const start = (offset + row * scale + y) * QR_CODE_PIXELS + offset + col * scale;
        png.data.fill(0, start, start + scale);
      }
    }
  }
  // No per-line filter: a two-tone image deflates well as is, and choosing filters costs more than it saves.
  const encoded = PNG.sync.write(png, { colorType: 0, inputColorType: 0, bitDepth: 8, filterType: 0 });
  return Promise.resolve(`data:image/png;base64,${encoded.toString('base64')}`);
}

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
