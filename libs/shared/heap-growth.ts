import { setFlagsFromString } from 'node:v8';

/**
 * Bounds how far V8 lets a heap grow past what is live before collecting it. V8's own
 * factor goes up to 4× the live size after each full collection when the process
 * allocates fast, which the service does all day (every uptime check and DDNS update
 * builds a new read-model document): the soak benchmark showed the main heap committing
 * ~150–230 MB for ~47 MB live, moving up and down by 100 MB from one simulated day to the
 * next. A factor of 1 + percent/100 keeps the committed heap proportional to what is live
 * (so it still follows a larger installation; no hard cap that could run out of memory).
 * V8 reads the flag at every collection, so setting it at start works, and the flag is
 * process-wide: the worker threads (DNS, read-model writer) get it too. 0 keeps V8's default.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
