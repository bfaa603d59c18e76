import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export const newSecret = (): string => PREFIX + randomBytes(32).toString('base64');

/**
 * The Standard Webhooks headers of one delivery: `webhook-signature` is `v1,` + base64
 * HMAC-SHA256 over `id.timestamp.body`, keyed with the bytes after `whsec_`.
 */
export function signedHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
