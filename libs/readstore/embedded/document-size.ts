/**
 * About how many characters of JSON a document makes, without making it: the embedded
 * read store bounds the writes it holds for the writer thread (and the size of each batch
 * it hands over) by this, where a count of documents says nothing about memory (one
 * dmarc_report_row_blocks document holds 100 rows, ~33 KB; an audit entry ~300 bytes).
 *
 * Exact for strings without characters JSON escapes, numbers written in up to 8
 * characters, and plain objects and arrays; an estimate otherwise (escapes, long
 * numbers, dates). It only steers memory bounds, never what is stored.
 */
export function approximateJsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return 8;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = 2 + value.length;
        for (const v of value) n += approximateJsonLength(v);
        return n;
      }
      if (value instanceof Date) return 26;
      let n = 2;
      for (const key in value) {
        const v = (value as Record<string, unknown>)[key];
        if (v !== undefined) n += key.length + 4 + approximateJsonLength(v);
      }
      return n;
    }
    default:
      // undefined and functions are left out by JSON.stringify.
      return 0;
  }
}
