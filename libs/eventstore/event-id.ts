import { createHash, randomUUID } from 'node:crypto';

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

/**
 * A UUID derived from a name (version-5 layout over SHA-256), for events a process
 * manager may append twice after a crash or from two workers: the store recognises the
 * repeated ids and writes once.
 */
export function nameBasedEventId(name: string): string {
  const h = createHash('sha256').update(name, 'utf8').digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
