/**
 * CPU-local query steering for the DNS threads (decision 0115): each thread pinned to a CPU
 * of its own, and a BPF program on the SO_REUSEPORT group that hands a datagram to the
 * socket of the thread on the CPU whose receive path queued it, so the query is read where
 * it arrived instead of waking a thread on the other CPU.
 */
import type { CpuAffinityMode } from '../shared/config';

/** What DNS thread i does: pin itself to cpus[i] (when pinning) and, thread 0 only, attach the program. */
export interface CpuLocalityPlan {
  /** CPU of thread i; the steering program picks socket (CPU mod threads), so cpus[i] mod threads = i. */
  cpus: number[] | null;
  /** Group size for the steering program, or null when not steering. */
  steerGroup: number | null;
}

export type CpuLocalityDecision = { ok: true; plan: CpuLocalityPlan } | { ok: false; reason: string };

/**
 * Plans the threads' CPUs from those the process may use. Only one thread per usable CPU
 * works: with more threads some would share a CPU (and its queries), with fewer some CPU's
 * queries would be steered to a thread that runs elsewhere. The program returns the CPU
 * number modulo the thread count, so the usable CPUs must leave distinct remainders.
 */
export function planCpuLocality(mode: CpuAffinityMode, threads: number, allowedCpus: number[]): CpuLocalityDecision {
  if (mode === 'off') return { ok: false, reason: 'DNS_CPU_AFFINITY=off' };
  if (threads < 2) return { ok: false, reason: 'one DNS thread: nothing to steer' };
  if (allowedCpus.length !== threads) {
    return { ok: false, reason: `${threads} DNS threads for ${allowedCpus.length} usable CPUs` };
  }
  const cpus: number[] = [];
  for (const cpu of allowedCpus) cpus[cpu % threads] = cpu;
  if (cpus.filter((c) => c !== undefined).length !== threads) {
    return { ok: false, reason: `usable CPUs ${allowedCpus.join(',')} do not map one to one onto ${threads} threads` };
  }
  return {
    ok: true,
    plan: { cpus: mode === 'steer' ? null : cpus, steerGroup: mode === 'pin' ? null : threads },
  };
}
