/**
 * Preloaded into a service a bench measures (`node --require …/memory-probe.js`): every
 * 50 ms it writes the process's memoryUsage() (rss, heapUsed, external, arrayBuffers, bytes)
 * as one JSON object to MEMORY_PROBE_FILE, so the bench can tell Buffer (external) memory
 * from the JS heap (the main thread's). Nothing else in the service changes; without the variable it does nothing.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.MEMORY_PROBE_FILE;
// Worker threads inherit --require; memoryUsage() is the whole process's anyway, so only the main thread writes.
if (file && isMainThread) {
  const write = () => {
    // Written beside and renamed, so a reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
    renameSync(`${file}.tmp`, file);
  };
  write();
  setInterval(write, 50).unref();
}
