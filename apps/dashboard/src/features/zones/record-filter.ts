import type { RRset } from '../../api/types';

/**
 * Record search on the zone screen: every word typed must appear in the RRset's name (`@`
 * for the apex), type or one of its values, case-insensitively; `type` narrows to one type.
 */
export function filterRRsets(rrsets: readonly RRset[], query: string, type: string): RRset[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return rrsets.filter((r) => {
    if (type && r.type !== type) return false;
    if (!words.length) return true;
    const text = [r.subname || '@', r.type, ...r.records].join(' ').toLowerCase();
    return words.every((w) => text.includes(w));
  });
}
