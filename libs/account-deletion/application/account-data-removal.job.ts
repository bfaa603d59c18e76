import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CompleteAccountDeletion } from '../../accounts/application/account.commands';
import { ACCOUNT_DELETION_ACTOR } from '../../accounts/application/account.handlers';
import { DeactivateApiKey } from '../../api-keys/application/api-key.commands';
import { DeleteCertificate } from '../../certificates/application/certificate.commands';
import { DeleteDomain } from '../../domains/application/domain.commands';
import { EventStreams } from '../../eventstore/event-streams';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { AppError } from '../../shared/errors';
import { DeleteTsigKey } from '../../transfers/application/transfer.commands';
import { tsigKeyringStream } from '../../transfers/domain/transfer.events';
import { tsigKeyringDecider } from '../../transfers/domain/tsig-keyring.decider';
import { SetMonitoring } from '../../uptime/application/monitor.commands';
import { DeleteWebhook } from '../../webhooks/application/webhook.commands';
import { webhooksStream } from '../../webhooks/domain/webhook.events';
import { webhooksDecider } from '../../webhooks/domain/webhooks.decider';
import { DeleteZone } from '../../zones/application/zone.commands';
import { API_KEYS } from '../../../projections/api-keys.projection';
import { CERTIFICATES } from '../../../projections/certificates.projection';
import { DOMAINS } from '../../../projections/domains.projection';
import { ZONES } from '../../../projections/zones.projection';

/** The read models the removal lists resources from: they must hold everything created before the deletion. */
const LISTED_FROM = ['domains', 'zones', 'certificates', 'api_keys'];
const CATCH_UP_MS = 30_000;

/**
 * Removes a deleted account's resources through each context's own command (decision 0090),
 * so DNS, transfers, history, the audit log and webhooks see ordinary deletions. Order: what
 * could still send or authenticate first (webhook endpoints, API keys), then certificates
 * (their renewals), monitors, hosts, zones (with their records, DNSSEC and secondaries) and
 * TSIG keys. Run again after a crash it finds what is left: a resource already gone answers
 * 404, which is skipped.
 */
@Injectable()
export class AccountDataRemovalJob {
  private readonly logger = new Logger('AccountDeletion');

  constructor(
    private readonly commands: CommandBus,
    private readonly streams: EventStreams,
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  /** Run by the account-deletion process for its `RemoveAccountData` command; `commandId` is that command's id. */
  async run(accountId: number, requestIp: string | null, commandId: string): Promise<void> {
    const sourceIp = requestIp ?? '';
    const caller = { accountId, actor: ACCOUNT_DELETION_ACTOR, sourceIp };
    const metadata = { actor: ACCOUNT_DELETION_ACTOR, account_id: accountId, source_ip: sourceIp };
    if (!(await this.projections.waitFor(await this.store.headPosition(), CATCH_UP_MS, LISTED_FROM)))
      throw new Error('read models did not catch up; the process tries again');

    const webhooks = (await this.streams.loadState(webhooksStream(accountId), webhooksDecider)).state;
    for (const id of webhooks.endpoints.keys()) await this.gone(new DeleteWebhook(accountId, id, metadata));

    for (const key of await this.projections.readModel(API_KEYS).find({ account_id: accountId, is_active: true }))
      await this.gone(new DeactivateApiKey(accountId, key.id, caller.actor, sourceIp));

    for (const cert of await this.projections.readModel(CERTIFICATES).find({ account_id: accountId }))
      if (!cert.deleted) await this.gone(new DeleteCertificate(caller, cert.id, false));

    const hosts = await this.projections.readModel(DOMAINS).find({ account_id: accountId });
    for (const host of hosts.filter((h) => h.monitor_enabled))
      await this.gone(new SetMonitoring(accountId, host.id, false, caller.actor, sourceIp));
    for (const host of hosts) await this.gone(new DeleteDomain(caller, host.fqdn));

    // Deepest first: a zone under another of the account's zones goes before its parent.
    const zones = await this.projections.readModel(ZONES).find({ account_id: accountId });
    for (const zone of zones.sort((a, b) => b.name.length - a.name.length))
      await this.gone(new DeleteZone(caller, zone.name));

    const keyring = (await this.streams.loadState(tsigKeyringStream(accountId), tsigKeyringDecider)).state;
    for (const id of keyring.keys.keys()) await this.gone(new DeleteTsigKey(caller, id));

    await this.commands.execute(new CompleteAccountDeletion(accountId, `${commandId}:complete`));
  }

  /** Sends one removal; "not found" means an earlier run (or the user) removed it already. */
  private async gone(command: object): Promise<void> {
    try {
      await this.commands.execute(command);
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return;
      // A plan that no longer has the feature refuses its routes (403); nothing of it can act any more.
      if (e instanceof AppError && e.status === 403) {
        this.logger.warn(`${command.constructor.name} refused (${e.code}); left as is`);
        return;
      }
      throw e;
    }
  }
}
