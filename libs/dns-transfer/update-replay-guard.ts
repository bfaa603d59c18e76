import type { Coordination } from '../consumers/coordination';

/**
 * Remembers the MACs of signed UPDATEs still inside their TSIG time window, so the same signed
 * message sent again is refused as a replay (RFC 8945 §5.2.3 leaves this to the server).
 *
 * Kept in the deployment's coordination store (a shared record per MAC, changed atomically), not
 * in a DNS thread: CPU-local steering (decision 0115) may deliver one client's datagrams to
 * different threads, and with roles apart several processes may serve DNS.
 */
export class UpdateReplayGuard {
  constructor(
    private readonly coordination: Coordination,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** True when this MAC was accepted before and its window (ending at `validUntil`, seconds) has not passed; remembers it otherwise. */
  replayed(mac: string, validUntil: number): Promise<boolean> {
    return this.coordination.updateRecord<number, boolean>(`dns-update-mac:${mac}`, this.nowMs(), (seen) =>
      seen === null
        ? { next: validUntil, expiresAt: (validUntil + 1) * 1000, result: false }
        : { next: seen, expiresAt: (seen + 1) * 1000, result: true },
    );
  }
}
