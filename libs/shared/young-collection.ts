import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's collection of its young generation (a scavenge), run at once. */
export type Collect = () => void;

/**
 * V8's `gc` function, taken without exposing it to the process: the flag is on only while
 * one new context is made (as the `expose-gc` package does), and only the minor collection
 * is used. Made once, on first use.
 */
let scavenge: Collect | null = null;
export function minorCollection(): Collect {
  if (!scavenge) {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;
    setFlagsFromString('--no-expose-gc');
    scavenge = () => gc({ type: 'minor' });
  }
  return scavenge;
}

/**
 * Asks for a young-generation collection after every `everyBytes` of Buffers read and
 * dropped. Why: a socket read and every copy a stream makes of it is a new Buffer, dead
 * as soon as it is passed on, but V8 collects young Buffers only once 32 MB of them have
 * piled up (2 × its default semi-space, a constant no flag changes), and the memory
 * allocator keeps what they took. Reading four large SMTP messages at once made 60–70 MB
 * of such garbage at the peak (docs/security/intake-and-tcp.md). A scavenge of a young
 * generation that holds little else takes about a millisecond.
 */
export class YoungCollector {
  private since = 0;

  constructor(
    readonly everyBytes: number,
    private readonly collect: Collect = minorCollection(),
  ) {}

  /** Counts `bytes` just read; collects once `everyBytes` have been read since the last time. */
  read(bytes: number): void {
    this.since += bytes;
    if (this.since < this.everyBytes) return;
    this.since = 0;
    this.collect();
  }
}
