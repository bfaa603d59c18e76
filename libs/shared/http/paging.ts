import { validationFailed } from '../errors';

/** `limit` query parameter: an integer in [min, max], `fallback` when absent. */
export function parseLimit(raw: unknown, fallback: number, min = 1, max = 100, name = 'limit'): number {
  if (raw === undefined || raw === '') return fallback;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw validationFailed(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

export function parseOptionalString(raw: unknown, name: string, maxLength = 512): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.length > maxLength)
    throw validationFailed(`${name} must be a string of at most ${maxLength} characters`);
  return raw;
}
