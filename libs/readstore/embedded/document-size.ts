/**
 * About how many characters of JSON a document makes, without making it: the embedded
 * read store bounds the writes it holds for the writer thread (and the size of each batch
 * it hands over) by this, where a count of documents says nothing about memory (one
 * dmarc_report_row_blocks document holds 100 rows, ~33 KB; an audit entry ~300 bytes).
 *
 * Exact for plain objects, arrays, strings without characters JSON escapes, booleans
 * and null; every number counts as 8 characters and a date as 26 (an estimate: writing
 * them out would cost what this saves). It only steers memory bounds, never what is stored.
 */
export function approximateJsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return 8;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        // '[' then each element with the ',' or ']' after it.
        let n = value.length === 0 ? 2 : 1;
        for (const v of value) n += approximateJsonLength(v) + 1;
        return n;
      }
      if (value instanceof Date) return 26;
      // '{' then each field as "key":value with the ',' or '}' after it.
      let n = 1;
      for (const key in value) {
        const v = (value as Record<string, unknown>)[key];
        if (v !== undefined && typeof v !== 'function') n += key.length + 4 + approximateJsonLength(v);
      }
      return n === 1 ? 2 : n;
    }
    default:
      // undefined and functions are left out by JSON.stringify.
      return 0;
  }
}
