import { validationFailed } from '../../shared/errors';
import { parseLimit } from '../../shared/http/paging';
import { ListQuery } from '../application/report-reads';
import { decodeCursor, parseDays } from '../domain/cursor';

/** Contract §9: default page size 50, at most 100. */
export const DEFAULT_LIMIT = 50;

export type Query = Record<string, unknown>;

/** `domain=` when given: one string (a repeated parameter is refused, not guessed at). */
export function optionalDomain(raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string') throw validationFailed('domain must be given once');
  return raw;
}

export function requiredDomain(raw: unknown): string {
  const domain = optionalDomain(raw);
  if (domain === undefined) throw validationFailed('domain is required');
  return domain;
}

function cursorOf(raw: unknown) {
  if (raw !== undefined && typeof raw !== 'string') throw validationFailed('cursor must be given once');
  return decodeCursor(raw);
}

export const pageOf = (q: Query) => ({ cursor: cursorOf(q.cursor), limit: parseLimit(q.limit, DEFAULT_LIMIT) });

export const listOf = (q: Query): ListQuery => ({ days: parseDays(q.days), ...pageOf(q) });
