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

/**
 * `value` with every secret field's value replaced by `[redacted]`, at any depth. `value` itself when
 * nothing in it would change (no secret field, only plain objects, arrays and primitives): the audit log
 * redacts every audited event's data, and a DDNS update's holds no secret, so it is not copied per event
 * (decision 0122). Callers only read what it returns.
 */
export function redact<T>(value: T): T {
  return untouched(value) ? value : redacted(value);
}

/** Whether `redacted` would give an equal copy: no secret field, nothing but plain objects, arrays and primitives. */
function untouched(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !untouched(value[i])) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in value as Record<string, unknown>) {
    if (!Object.hasOwn(value as object, k)) return false;
    if (isSecret(k) || !untouched((value as Record<string, unknown>)[k])) return false;
  }
  return true;
}

function redacted<T>(value: T): T {
  if (Array.isArray(value)) return value.map(redacted) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k in value as Record<string, unknown>) {
    if (!Object.hasOwn(value as object, k)) continue;
    const v = (value as Record<string, unknown>)[k];
    out[k] = isSecret(k) ? '[redacted]' : redacted(v);
  }
  return out as T;
}
