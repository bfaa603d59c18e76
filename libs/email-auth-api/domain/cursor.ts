import { validationFailed } from '../../shared/errors';

/**
 * Opaque page cursors on a stable sort key (time, id), newest first: the next page
 * starts strictly after the last item returned, so items inserted meanwhile (newer, or
 * older in a gap) are neither repeated nor shift later items out of the listing.
 */
export interface CursorPosition {
  at: string;
  id: string;
}

export const encodeCursor = (p: CursorPosition): string =>
  Buffer.from(JSON.stringify([p.at, p.id]), 'utf8').toString('base64url');

export function decodeCursor(raw: string | undefined): CursorPosition | null {
  if (raw === undefined || raw === '') return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      typeof parsed[1] === 'string'
    ) {
      return { at: parsed[0], id: parsed[1] };
    }
  } catch {
    /* fall through */
  }
  throw validationFailed('cursor is not a cursor this API returned');
}

/** Read-store filter for "after the cursor" in (at desc, id desc) order. */
export const afterCursor = (c: CursorPosition | null, atField = 'occurred_at') =>
  c ? { $or: [{ [atField]: { $lt: c.at } }, { [atField]: c.at, _id: { $lt: c.id } }] } : {};

/** `limit + 1` items read: a page of `limit` and whether more follow. */
export function page<T extends { _id: string }>(docs: T[], limit: number, atOf: (d: T) => string) {
  const items = docs.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: docs.length > limit && last ? encodeCursor({ at: atOf(last), id: last._id }) : null };
}

/** `days`: default 30, at most the Enterprise history of three years (seed: Limits). */
export const MAX_DAYS = 3 * 365 + 1;
export function parseDays(raw: unknown): number {
  if (raw === undefined || raw === '') return 30;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_DAYS)
    throw validationFailed(`days must be an integer from 1 to ${MAX_DAYS} (three years)`);
  return n;
}
