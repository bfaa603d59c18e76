import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { domainDecider } from '../../domains/domain/domain.decider';
import { domainStream } from '../../domains/domain/domain.events';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { CommandRunner } from '../../eventstore/command-runner';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { CLOCK, Clock } from '../../shared/clock';
import { notFound } from '../../shared/errors';
import { monitorsDecider } from '../domain/monitor.decider';
import { monitorsStream, uptimeStream, UPTIME_STREAM_MAX_AGE_SECONDS } from '../domain/uptime.events';
import { DOMAIN_NOT_FOUND, UptimeAccess } from './uptime-access';
import { UPTIME_DOMAINS } from '../../../projections/uptime-domains.projection';
import { SetMonitoring } from './monitor.commands';

export interface MonitoringSet {
  success: true;
  monitor_enabled: boolean;
  domain_id: number;
  fqdn: string;
}

/**
 * The monitor toggle. Ownership comes from the domain stream and the plan from the
 * account stream (write-side truth); the decision is taken on the account's
 * `monitors-<account>` stream, so concurrent enables never pass the plan's limit.
 */
@CommandHandler(SetMonitoring)
export class SetMonitoringHandler implements ICommandHandler<SetMonitoring, MonitoringSet> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly access: UptimeAccess,
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: SetMonitoring): Promise<MonitoringSet> {
    const plan = await this.access.planOf(cmd.accountId);
    const { state: domain } = await this.runner.streams.loadState(domainStream(cmd.domainId), domainDecider);
    if (domain.status !== 'active' || domain.accountId !== cmd.accountId) throw notFound(DOMAIN_NOT_FOUND);
    const at = this.clock.now().toISOString();
    const metadata = { actor: cmd.actor, account_id: cmd.accountId, source_ip: cmd.sourceIp };
    if (cmd.enabled) {
      // Before the first check can be appended; setting it again is harmless.
      await this.store.setStreamMetadata(uptimeStream(cmd.domainId), { maxAgeSeconds: UPTIME_STREAM_MAX_AGE_SECONDS });
      const deletedDomainIds = await this.deletedDomainsOf(cmd.accountId);
      await this.runner.run(
        monitorsStream(cmd.accountId),
        monitorsDecider,
        {
          type: 'EnableMonitor',
          accountId: cmd.accountId,
          plan,
          domainId: cmd.domainId,
          fqdn: domain.fqdn,
          deletedDomainIds,
          at,
        },
        metadata,
      );
    } else {
      await this.runner.run(
        monitorsStream(cmd.accountId),
        monitorsDecider,
        { type: 'DisableMonitor', accountId: cmd.accountId, domainId: cmd.domainId, at },
        metadata,
      );
    }
    return { success: true, monitor_enabled: cmd.enabled, domain_id: cmd.domainId, fqdn: domain.fqdn };
  }

  /**
   * Deleted domains of the account, so the decider releases their monitoring slots.
   * Deletion is final: a lagging read model can only under-report it, which makes the
   * limit stricter for a moment, never looser.
   */
  private async deletedDomainsOf(accountId: number): Promise<number[]> {
    const docs = await this.projections
      .readModel(UPTIME_DOMAINS)
      .find({ account_id: accountId, deleted: true }, { projection: { _id: 1 } });
    return docs.map((d) => d._id);
  }
}

export const MONITOR_COMMAND_HANDLERS = [SetMonitoringHandler];
