import { Injectable } from '@nestjs/common';
import { EventStreams } from '../../eventstore/event-streams';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { forbidden } from '../../shared/errors';
import { ZoneQueries } from '../../zones/application/zone.queries';
import { secondariesDecider, Secondary } from '../domain/secondaries.decider';
import { secondariesStream, tsigKeyringStream } from '../domain/transfer.events';
import { KeyringKey, PLAN_MESSAGE, planAllowsTransfers, tsigKeyringDecider } from '../domain/tsig-keyring.decider';
import { TransferStatus } from './transfer-status';

export const tsigKeyView = (k: KeyringKey, liveZoneIds?: Set<string>) => ({
  id: k.id,
  name: k.name,
  algorithm: k.algorithm,
  purpose: k.purpose,
  // A deleted zone leaves its keys (contract §18): the key keeps only live zones.
  zones: k.zones.filter((z) => !liveZoneIds || liveZoneIds.has(z.zone_id)).map((z) => z.name),
  allow: k.allow,
  created_at: k.created_at,
});

/**
 * Reads TSIG keys and secondaries from their streams: a keyring or a zone's secondaries is
 * a handful of events, and reading the stream answers with what was just written.
 */
@Injectable()
export class TransferQueries {
  constructor(
    private readonly streams: EventStreams,
    private readonly directory: AccountDirectory,
    private readonly zones: ZoneQueries,
    private readonly status: TransferStatus,
  ) {}

  private async assertPlan(accountId: number): Promise<void> {
    const { state } = await this.directory.load(accountId);
    if (!planAllowsTransfers(state.plan)) throw forbidden('plan_required', PLAN_MESSAGE);
  }

  async keys(accountId: number) {
    await this.assertPlan(accountId);
    const { state } = await this.streams.loadState(tsigKeyringStream(accountId), tsigKeyringDecider);
    const live = new Set((await this.zones.list(accountId)).map((z) => z.id));
    return [...state.keys.values()]
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.name.localeCompare(b.name))
      .map((k) => tsigKeyView(k, live));
  }

  async secondaries(accountId: number, zoneName: string) {
    const zone = await this.zones.get(accountId, zoneName);
    await this.assertPlan(accountId);
    const { state } = await this.streams.loadState(secondariesStream(zone.id), secondariesDecider);
    return [...state.secondaries.values()].map((s) => this.secondaryView(zone.name, s));
  }

  secondaryView(zone: string, s: Secondary) {
    const address =
      s.port === 53 ? s.address : s.address.includes(':') ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`;
    return { id: s.id, address, tsig_key: s.tsig_key, ...this.status.get(zone, s.address, s.port) };
  }
}
