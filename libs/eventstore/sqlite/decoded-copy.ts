/**
 * What `JSON.parse(JSON.stringify(value))` gives, built by copying `value` instead of parsing
 * its JSON: the store hands the events it has just committed to its own subscriptions already
 * decoded (decision 0114), and a copy of a small event costs about a third of a parse. Only
 * for values whose JSON form is plain: strings, finite numbers, booleans, null, arrays and
 * plain objects. Anything whose JSON form could differ from a copy (a `toJSON`, a date, a class
 * instance, a number JSON writes as null, a `__proto__` key) answers `NOT_PLAIN`, and the
 * event is parsed from its stored text when first read, as every event read back is.
 * The copy shares nothing with `value` (which its appender may still hold), key order included.
 */
export const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

export function decodedCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON writes -0 as 0, and NaN and the infinities as null.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : NOT_PLAIN;
    case 'object': {
      if (value === null) return null;
      const proto = Object.getPrototypeOf(value);
      if (proto === Array.prototype) {
        const array = value as unknown[];
        const out = new Array<unknown>(array.length);
        for (let i = 0; i < array.length; i++) {
          const v = array[i];
          // In an array, what JSON cannot write (and holes) becomes null.
          const copy = v === undefined || typeof v === 'function' || typeof v === 'symbol' ? null : decodedCopy(v);
          if (copy === NOT_PLAIN) return NOT_PLAIN;
          out[i] = copy;
        }
        return out;
      }
      if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
      const object = value as Record<string, unknown>;
      if (typeof object.toJSON === 'function') return NOT_PLAIN;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(object)) {
        const v = object[key];
        // In an object, JSON leaves such members out.
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        // An assignment would set the copy's prototype; JSON.parse makes it an own member.
        if (key === '__proto__') return NOT_PLAIN;
        const copy = decodedCopy(v);
        if (copy === NOT_PLAIN) return NOT_PLAIN;
        out[key] = copy;
      }
      return out;
    }
    default:
      return NOT_PLAIN;
  }
}
