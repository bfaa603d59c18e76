/**
 * Names the calling thread for the kernel (Linux: /proc/thread-self/comm, at most 15
 * bytes), so `top -H`, `perf` and /proc/<pid>/task/<tid>/comm tell the DNS threads and the
 * query-log thread apart from V8's and libuv's threads, which all say "node". Node 20 does
 * not name worker threads itself. Silently nothing where /proc is not there.
 */
import { writeFileSync } from 'node:fs';

export function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // Not Linux, or /proc not mounted: only diagnostics lose.
  }
}
