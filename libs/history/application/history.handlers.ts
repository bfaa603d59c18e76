import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DOMAINS } from '../../../projections/domains.projection';
import { CommandRunner } from '../../eventstore/command-runner';
import { EventMetadata } from '../../eventstore/event-store.port';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { notFound } from '../../shared/errors';
import { normalizeFqdn } from '../../shared/fqdn';
import { DOMAIN_NOT_FOUND, domainDecider } from '../../domains/domain/domain.decider';
import { domainStream } from '../../domains/domain/domain.events';
import { ZoneQueries } from '../../zones/application/zone.queries';
import { ZoneQuota } from '../../zones/application/zone-quota';
import { zoneDecider } from '../../zones/domain/zone.decider';
import { zoneStream } from '../../zones/domain/zone.events';
import { HistoryQueries } from './history.queries';

export interface HistoryCaller {
  accountId: number;
  actor: string;
  sourceIp: string;
}

/** Brings a zone's records back to the instant `at` (ms): contract §19 restore. */
export class RestoreZone {
  constructor(
    readonly caller: HistoryCaller,
    readonly zone: string,
    readonly at: number,
  ) {}
}

/** Brings a host's addresses back to the instant `at` (ms). */
export class RestoreHost {
  constructor(
    readonly caller: HistoryCaller,
    readonly fqdn: string,
    readonly at: number,
  ) {}
}

/** `restored_from` rides in the metadata: the events are the ordinary ones, so every consumer (DNS, read models) applies them unchanged. */
const restoreMetadata = (c: HistoryCaller, at: number): EventMetadata => ({
  actor: c.actor,
  account_id: c.accountId,
  source_ip: c.sourceIp,
  restored_from: new Date(at).toISOString(),
});

@CommandHandler(RestoreZone)
export class RestoreZoneHandler implements ICommandHandler<RestoreZone, void> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly zones: ZoneQueries,
    private readonly history: HistoryQueries,
    private readonly quota: ZoneQuota,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: RestoreZone): Promise<void> {
    const live = await this.zones.get(cmd.caller.accountId, cmd.zone);
    await this.history.caughtUp();
    const subject = await this.history.zoneSubject(cmd.caller.accountId, live.name, cmd.at);
    // The zone alive then must be this one: a zone deleted and imported again is a new zone, not its past.
    if (subject.id !== live.id) throw notFound('The zone did not exist at that instant');
    const { records } = await this.history.zoneAt(subject, cmd.at);
    const recordLimit = await this.quota.recordLimit(cmd.caller.accountId);
    await this.runner.run(
      zoneStream(live.id),
      zoneDecider,
      {
        type: 'RestoreRRsets',
        accountId: cmd.caller.accountId,
        rrsets: records,
        recordLimit,
        at: this.clock.now().toISOString(),
      },
      restoreMetadata(cmd.caller, cmd.at),
      ['zones', 'history'],
    );
  }
}

@CommandHandler(RestoreHost)
export class RestoreHostHandler implements ICommandHandler<RestoreHost, void> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly projections: ProjectionEngine,
    private readonly history: HistoryQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: RestoreHost): Promise<void> {
    const live = await this.projections.readModel(DOMAINS).findOne({ fqdn: normalizeFqdn(cmd.fqdn) });
    if (!live || live.account_id !== cmd.caller.accountId) throw notFound(DOMAIN_NOT_FOUND);
    await this.history.caughtUp();
    const subject = await this.history.hostSubject(cmd.caller.accountId, live.fqdn, cmd.at);
    const then = subject.id === String(live.id) ? await this.history.hostAt(subject, cmd.at) : null;
    if (!then) throw notFound('The domain did not exist at that instant');
    await this.runner.run(
      domainStream(live.id),
      domainDecider,
      {
        type: 'RestoreAddresses',
        accountId: cmd.caller.accountId,
        addresses: { ipv4: then.host.ipv4, ipv6: then.host.ipv6 },
        ttl: then.host.ttl ?? undefined,
        at: this.clock.now().toISOString(),
      },
      restoreMetadata(cmd.caller, cmd.at),
      ['domains', 'history'],
    );
  }
}

export const HISTORY_COMMAND_HANDLERS = [RestoreZoneHandler, RestoreHostHandler];
