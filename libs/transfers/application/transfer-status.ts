import { Injectable } from '@nestjs/common';

/** What the DNS role last did with one secondary (GET /zones/{zone}/secondaries). */
export interface SecondaryActivity {
  last_notified_at: string | null;
  last_transfer_at: string | null;
  last_serial: number | null;
}

export const activityKey = (zone: string, address: string) => `${zone}|${address}`;

/**
 * The DNS role's reports about NOTIFYs and transfers, kept in this process's memory: they
 * are operational facts, not changes of the zone, so they are not events. A process
 * without the `dns` role answers nulls (see docs/dns-transfers.md).
 */
@Injectable()
export class TransferStatus {
  private readonly activity = new Map<string, SecondaryActivity>();

  get(zone: string, address: string): SecondaryActivity {
    return this.activity.get(activityKey(zone, address)) ?? { last_notified_at: null, last_transfer_at: null, last_serial: null };
  }

  notified(zone: string, address: string, at: Date): void {
    this.activity.set(activityKey(zone, address), { ...this.get(zone, address), last_notified_at: at.toISOString() });
  }

  transferred(zone: string, address: string, serial: number, at: Date): void {
    this.activity.set(activityKey(zone, address), { ...this.get(zone, address), last_transfer_at: at.toISOString(), last_serial: serial });
  }
}
