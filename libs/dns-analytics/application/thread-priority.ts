/**
 * Scheduling priority of the calling thread (Linux): the query log is telemetry, so when it
 * and an answering thread both want a core, the answer should win. setpriority() on Linux
 * takes a thread id where it says process id and then applies to that thread alone; the
 * calling thread's id is the last part of /proc/thread-self.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Niceness of the query-log thread unless QUERY_LOG_NICE says otherwise (QUERY_LOG_NICE=0: the process's own). */
export const DEFAULT_QUERY_LOG_NICE = 10;

/** The niceness QUERY_LOG_NICE asks for (0..19), else the default. */
export function queryLogNice(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.QUERY_LOG_NICE);
  return env.QUERY_LOG_NICE !== undefined && env.QUERY_LOG_NICE !== '' && Number.isInteger(n) && n >= 0 && n <= 19 ? n : DEFAULT_QUERY_LOG_NICE;
}

/** This thread's kernel id, or null where /proc/thread-self does not exist (not Linux). */
export function currentThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/**
 * Lowers the calling thread's priority to `nice` (never raises it: a process started with a
 * higher niceness keeps it); false where that is not possible (then it runs as before).
 */
export function lowerThreadPriority(nice: number): boolean {
  const tid = currentThreadId();
  if (tid === null || nice <= 0) return false;
  try {
    if (getPriority(tid) < nice) setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
