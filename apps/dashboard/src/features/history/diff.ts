import type { Change, RecordChange } from './types';

export const isRecordChange = (c: Change): c is RecordChange => 'subname' in c;

/** What a record change removed and added, value by value (an RRset's order carries no meaning). */
export function recordDiff(c: RecordChange): { removed: string[]; added: string[]; ttl: string | null } {
  const before = c.before ?? [];
  const after = c.after ?? [];
  const ttl =
    c.before_ttl != null && c.after_ttl != null && c.before_ttl !== c.after_ttl
      ? `TTL ${c.before_ttl} s → ${c.after_ttl} s`
      : null;
  return { removed: before.filter((v) => !after.includes(v)), added: after.filter((v) => !before.includes(v)), ttl };
}

/** Whether a record PUT takes away any value the zone has now: the edits the zone screen offers to undo. */
export function removesValues(
  existing: Array<{ subname: string; type: string; records: string[] }>,
  put: Array<{ subname: string; type: string; records: string[] }>,
): boolean {
  return put.some((p) => {
    const now = existing.find((e) => e.subname === p.subname && e.type === p.type);
    return !!now && now.records.some((v) => !p.records.includes(v));
  });
}

const LABELS: Record<string, string> = {
  zone_imported: 'Zone imported',
  records_changed: 'Records changed',
  restored: 'Restored',
  zone_verified: 'Zone verified',
  zone_deleted: 'Zone deleted',
  host_created: 'Host created',
  address_updated: 'Address updated',
  ttl_updated: 'TTL changed',
  host_deleted: 'Host deleted',
};
export const changeLabel = (type: string) => LABELS[type] ?? type;
