/**
 * The two request headers a cached report-row page answers to (RFC 9110): Accept-Encoding
 * (is gzip acceptable?) and If-None-Match (does the client hold this page already?).
 * Pure functions of the header text.
 */

/** Whether `Accept-Encoding` allows gzip: `gzip`, `x-gzip` or `*` with a q-value above 0 (an explicit gzip entry wins over `*`). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const entry of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [coding, ...params] = entry.split(';').map((s) => s.trim().toLowerCase());
    const q = qValue(params);
    if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (coding === '*') any = q;
  }
  return (gzip ?? any ?? 0) > 0;
}

/** The `q=` of an Accept-Encoding entry: 1 when absent, 0 when malformed (an unreadable weight allows nothing). */
function qValue(params: string[]): number {
  const q = params.find((p) => p.startsWith('q='));
  if (q === undefined) return 1;
  const value = q.slice(2);
  return /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
}

/** A weak entity tag (`W/"…"`) for an opaque value such as a digest of the body. */
export const weakEtag = (opaque: string): string => `W/"${opaque}"`;

/**
 * Whether `If-None-Match` names this entity tag, by the weak comparison GET uses (RFC 9110
 * §13.1.2): `*`, or any listed tag with the same opaque part, weak or not.
 */
export function ifNoneMatchHits(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.replace(/^W\//, '');
  return (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag.replace(/^W\//, '') === opaque);
}
