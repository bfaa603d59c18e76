/** RFC 4180 field: quoted when it holds a separator, quote or line break. */
export const csvField = (v: string | number | boolean): string => {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One RFC 4180 record with its CRLF. */
export const csvRecord = (fields: readonly (string | number | boolean)[]): string =>
  fields.map(csvField).join(',') + '\r\n';
