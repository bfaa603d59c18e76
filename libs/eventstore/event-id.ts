import { randomUUID } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Event ids made
 * by the store are time-ordered so the unique index on ids grows at its right edge
 * instead of touching a random page per insert. The random part comes from
 * `randomUUID`, whose entropy is pooled (a `randomBytes` call per id costs a syscall).
 */
export function uuidv7(now = Date.now()): string {
  const random = randomUUID();
  const ms = now.toString(16).padStart(12, '0');
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${random.slice(15, 18)}-${random.slice(19)}`;
}
