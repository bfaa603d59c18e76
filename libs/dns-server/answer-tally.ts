/**
 * What the metrics need of every answered query, without an object per query: a count by
 * transport and rcode, and answer times. A UDP batch is handed to the socket in one call,
 * so its queries share one answer time and are observed together.
 */
import type { Transport } from './query-sink';

export interface AnswerTally {
  /** One answered query; `rcode` is the numeric rcode as logged (16 for BADVERS). */
  count(transport: Transport, rcode: number): void;
  /** `n` answers that each took `seconds` from receipt to the socket. */
  observe(seconds: number, n: number): void;
}
