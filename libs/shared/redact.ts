/** Field names whose values are secrets or secret-derived, never shown to readers or logs. */
const SECRET_FIELD = /(hash|secret|token|password|private|sealed|backup_codes|^key$)/i;

export function redact<T>(value: T): T {
  if (Array.isArray(value)) return value.map(redact) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_FIELD.test(k) ? '[redacted]' : redact(v);
  }
  return out as T;
}
