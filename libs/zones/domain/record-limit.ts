import { limitReached } from '../../accounts/domain/plan-limits';
import { RRset } from './zone.events';

/** Records of a zone: every value of every RRset is one record (contract §16). */
export function recordCount(rrsets: Iterable<RRset>): number {
  let n = 0;
  for (const r of rrsets) n += r.records.length;
  return n;
}

/**
 * Refuses a change that leaves the zone above the plan's records-per-zone limit and
 * bigger than it was. A zone already above a limit lowered later keeps working: a change
 * that removes or replaces records (the count does not grow) still passes.
 *
 * Counted: records the account writes (API, zone-file import) and the email-auth records
 * its settings generate (persistent content the account chose; it can free room). Not
 * refused: ACME challenge records (AddRecordValues passes no limit): the service adds them
 * for minutes while a certificate is validated and removes them, and refusing them would
 * stop renewals exactly for the zones that are full.
 */
export function checkRecordLimit(before: Iterable<RRset>, after: Iterable<RRset>, limit: number | undefined): void {
  if (limit === undefined) return;
  const next = recordCount(after);
  if (next > limit && next > recordCount(before)) throw limitReached('recordsPerZone', limit);
}
