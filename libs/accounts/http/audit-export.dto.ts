import { validationFailed } from '../../shared/errors';
import { AUDIT_EXPORT_FORMATS, AuditExportFormat, AuditWindow } from '../application/audit-export';

const PARAMS = ['from', 'to', 'format'];

/** `YYYY-MM-DD` (UTC midnight) or a date-time with `Z` or an offset; seconds and fractions optional. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))?$/;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** An ISO 8601 instant as the stored form (`toISOString`, millisecond precision), or a 400 naming the parameter. */
export function parseInstant(raw: unknown, name: string): string | undefined {
  if (raw === undefined) return undefined;
  const m = typeof raw === 'string' ? ISO.exec(raw) : null;
  const bad = () =>
    validationFailed(`${name} must be an ISO 8601 date or date-time with Z or an offset (e.g. 2026-01-31T12:00:00Z)`);
  if (!m) throw bad();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) throw bad();
  if (
    m[4] !== undefined &&
    (Number(m[4]) > 23 ||
      Number(m[5]) > 59 ||
      Number(m[6] ?? 0) > 59 ||
      Number(m[8] ?? 0) > 23 ||
      Number(m[9] ?? 0) > 59)
  )
    throw bad();
  const t = Date.parse(m[4] === undefined ? `${m[1]}-${m[2]}-${m[3]}T00:00:00Z` : (raw as string));
  if (Number.isNaN(t)) throw bad();
  return new Date(t).toISOString();
}

/** The export's query: strict (unknown parameters refused); `format` jsonl when absent. */
export function parseAuditExportQuery(query: Record<string, unknown>): {
  format: AuditExportFormat;
  window: AuditWindow;
} {
  for (const key of Object.keys(query))
    if (!PARAMS.includes(key)) throw validationFailed(`unknown query parameter: ${key}`);
  const format = query.format ?? 'jsonl';
  if (typeof format !== 'string' || !(AUDIT_EXPORT_FORMATS as readonly string[]).includes(format))
    throw validationFailed('format must be jsonl or csv');
  const from = parseInstant(query.from, 'from');
  const to = parseInstant(query.to, 'to');
  if (from !== undefined && to !== undefined && from > to) throw validationFailed('from must not be after to');
  return { format: format as AuditExportFormat, window: { from, to } };
}
