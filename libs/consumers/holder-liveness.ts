import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Where this process's pids mean something: the host name and, on Linux, the pid namespace
 * (two containers may share a host name and a data volume but not their pids).
 */
export function processSpace(): string {
  if (space !== null) return space;
  let namespace = '';
  try {
    namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '';
  } catch {
    // Not Linux: the host name alone.
  }
  space = namespace ? `${hostname()}/${namespace}` : hostname();
  return space;
}
let space: string | null = null;

/**
 * Whether a lease holder (`space:pid:nonce`, see newHolderId) is a process of this host and
 * pid namespace that no longer exists. A process killed with SIGKILL never releases its
 * leases; restarted on the same machine it would otherwise wait a whole TTL before its
 * projections and process managers run, and every write it answers meanwhile misses
 * read-your-writes.
 *
 * Only a definite "no such process" counts: a holder elsewhere, a live pid (even one reused
 * by an unrelated process), or a pid we may not signal all keep the lease until it expires.
 */
export function isDeadLocalHolder(holder: string, localSpace: string = processSpace()): boolean {
  const parts = holder.split(':');
  if (parts.length < 3) return false;
  const pid = Number(parts[parts.length - 2]);
  if (parts.slice(0, -2).join(':') !== localSpace || !Number.isInteger(pid) || pid <= 0 || pid === process.pid)
    return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
