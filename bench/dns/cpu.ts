/** CPU time of benchmarked servers, from /proc (Linux): robust where wall-clock rates are not, on a shared machine. */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

/** The pids of a process and every descendant still running (NSD forks its servers). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const s = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/**
 * Times the threads of a process tree went to sleep of their own accord (voluntary context
 * switches, from /proc): each is a wake-up later. Per query, it tells how many queries a
 * server answers per wake-up, which the machine's load changes far less than CPU time.
 */
export function treeWakeups(root: number): number {
  let switches = 0;
  for (const pid of processTree(root)) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
        switches += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      }
    } catch {
      /* gone */
    }
  }
  return switches;
}

/** CPU ticks (USER_HZ) of a process and every descendant still running, user and kernel apart (NSD forks its servers). */
export function treeCpuTicks(root: number): { user: number; kernel: number } {
  const stats = new Map<number, { ppid: number; user: number; kernel: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const s = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(entry), { ppid: Number(f[1]), user: Number(f[11]), kernel: Number(f[12]) });
    } catch {
      /* gone */
    }
  }
  const sum = { user: 0, kernel: 0 };
  const walk = (pid: number) => {
    sum.user += stats.get(pid)?.user ?? 0;
    sum.kernel += stats.get(pid)?.kernel ?? 0;
    for (const [child, s] of stats) if (s.ppid === pid) walk(child);
  };
  walk(root);
  return sum;
}

/** CPU seconds of a process and every descendant still running. */
export function treeCpuSeconds(root: number): number {
  const { user, kernel } = treeCpuTicks(root);
  return (user + kernel) / TICKS;
}

/** CPU seconds of one process's main thread alone (its thread id is the pid): what HTTP and DDNS share. */
export function mainThreadCpuSeconds(pid: number): number {
  try {
    const s = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS;
  } catch {
    return NaN;
  }
}

/**
 * Waits until a started server's process tree has been nearly idle for a moment (its
 * start-up work done: the query log's IP data loaded, projections caught up, the zone
 * compiled), so a measurement starts from the steady state a running service is in.
 * Gives up after `timeoutMs`.
 */
export async function waitForQuiet(pid: number, windowMs = 500, maxCpuShare = 0.05, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let before = treeCpuSeconds(pid);
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, windowMs));
    const now = treeCpuSeconds(pid);
    if (now - before <= (maxCpuShare * windowMs) / 1000) return;
    before = now;
  }
}
