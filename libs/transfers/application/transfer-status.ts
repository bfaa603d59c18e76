import { Injectable } from '@nestjs/common';

/** What the DNS role last did with one secondary (GET /zones/{zone}/secondaries). */
export interface SecondaryActivity {
  last_notified_at: string | null;
  last_transfer_at: string | null;
  last_serial: number | null;
}

/** Node reports IPv4 clients of a dual-stack socket as ::ffff:a.b.c.d. */
const plain = (ip: string) => (ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip.toLowerCase());

/**
 * The DNS role's reports about NOTIFYs and transfers, kept in this process's memory: they
 * are operational facts, not changes of the zone, so they are not events. A process
 * without the `dns` role answers nulls (see docs/dns-transfers.md). NOTIFYs go to an
 * address and port; transfers come from an address (any port).
 */
@Injectable()
export class TransferStatus {
  private readonly notifies = new Map<string, string>();
  private readonly transfers = new Map<string, { at: string; serial: number }>();

  get(zone: string, address: string, port: number): SecondaryActivity {
    const transfer = this.transfers.get(`${zone}|${plain(address)}`);
    return {
      last_notified_at: this.notifies.get(`${zone}|${plain(address)}|${port}`) ?? null,
      last_transfer_at: transfer?.at ?? null,
      last_serial: transfer?.serial ?? null,
    };
  }

  /** `target` is `address:port` (the last colon separates the port). */
  notified(zone: string, target: string, at: Date): void {
    const cut = target.lastIndexOf(':');
    this.notifies.set(`${zone}|${plain(target.slice(0, cut))}|${target.slice(cut + 1)}`, at.toISOString());
  }

  transferred(zone: string, client: string, serial: number, at: Date): void {
    this.transfers.set(`${zone}|${plain(client)}`, { at: at.toISOString(), serial });
  }
}
