/** Field names whose values are secrets or secret-derived, never shown to readers or logs. */
const SECRET_FIELD = /(hash|secret|token|password|private|sealed|backup_codes|^key$)/i;

/**
 * SECRET_FIELD's answer by field name: the audit log redacts every audited event's data,
 * and its field names are the code's own, a few dozen (bounded all the same).
 */
const SECRET = new Map<string, boolean>();
const isSecret = (field: string): boolean => {
  let secret = SECRET.get(field);
  if (secret === undefined) {
    if (SECRET.size >= 1024) SECRET.clear();
    SECRET.set(field, (secret = SECRET_FIELD.test(field)));
  }
  return secret;
};

export function redact<T>(value: T): T {
  if (Array.isArray(value)) return value.map(redact) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k in value as Record<string, unknown>) {
    if (!Object.hasOwn(value as object, k)) continue;
    const v = (value as Record<string, unknown>)[k];
    out[k] = isSecret(k) ? '[redacted]' : redact(v);
  }
  return out as T;
}
