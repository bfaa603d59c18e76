/**
 * Scheduling priority of the calling thread (Linux): the query log is telemetry, so an
 * operator may put it below the answering threads (QUERY_LOG_NICE). setpriority() on Linux
 * takes a thread id where it says process id and then applies to that thread alone; the
 * calling thread's id is the last part of /proc/thread-self. Off by default: measured, it
 * did not lower p99 and may raise it (an answering thread posting a batch waits for the
 * channel's lock when a deprioritised log thread was preempted holding it).
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Niceness of the query-log thread unless QUERY_LOG_NICE says otherwise: 0, the process's own. */
export const DEFAULT_QUERY_LOG_NICE = 0;

/** The niceness QUERY_LOG_NICE asks for (0..19), else the default. */
export function queryLogNice(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.QUERY_LOG_NICE);
  return env.QUERY_LOG_NICE !== undefined && env.QUERY_LOG_NICE !== '' && Number.isInteger(n) && n >= 0 && n <= 19
    ? n
    : DEFAULT_QUERY_LOG_NICE;
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
