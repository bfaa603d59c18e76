import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EventMetadata } from '../../eventstore/event-store.port';
import { CommandRunner } from '../../eventstore/command-runner';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { DOMAINS } from '../../../projections/domains.projection';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { badRequest, conflict, notFound, validationFailed } from '../../shared/errors';
import { ZoneQueries } from '../../zones/application/zone.queries';
import { PlanQuota } from '../../accounts/application/plan-quota';
import { DOMAIN_NOT_FOUND, domainDecider, DomainState } from '../domain/domain.decider';
import { DEFAULT_TTL, domainStream } from '../domain/domain.events';
import { fqdnAllowed, normalizeFqdn } from '../../shared/fqdn';
import { canonicalIp, Family, familyOf } from '../domain/addresses';
import { Caller, CreateDomain, DdnsUpdateHost, DeleteDomain, EditDomain, HostEdit } from './domain.commands';
import { AddressPolicy } from './address-policy';
import { FqdnRegistry } from './fqdn-registry';
import { KeyedLock } from './keyed-lock';

export const INVALID_FQDN_MESSAGE = 'fqdn must be a host name under a dynamic-DNS zone or one of your verified zones';

// The caller's correlation id first when it states one (routes without the async-context origin), else the
// origin's. Written out as literals: a DDNS update builds one per event (a spread of a second object cost more).
const metadataOf = (c: Caller): EventMetadata =>
  c.correlationId
    ? { correlation_id: c.correlationId, actor: c.actor, account_id: c.accountId, source_ip: c.sourceIp }
    : { actor: c.actor, account_id: c.accountId, source_ip: c.sourceIp };
// Reservation events are bookkeeping of the uniqueness rule: no account_id, so they stay out of the audit log.
const reservationMetadata = (c: Caller): EventMetadata =>
  c.correlationId
    ? { correlation_id: c.correlationId, actor: c.actor, source_ip: c.sourceIp }
    : { actor: c.actor, source_ip: c.sourceIp };

export interface DomainResult {
  state: DomainState;
  changed: boolean;
}

/** Shared by the per-domain handlers: resolve the fqdn on the write side, then decide one at a time per host. */
abstract class DomainCommandHandler {
  constructor(
    protected readonly runner: CommandRunner,
    protected readonly registry: FqdnRegistry,
    protected readonly projections: ProjectionEngine,
    protected readonly lock: KeyedLock,
    protected readonly clock: Clock,
  ) {}

  /**
   * The domain holding an fqdn: the read model answers the hot path (DDNS updates) with one
   * indexed lookup; a miss (a host created an instant ago through another replica) asks the
   * reservation stream. Either way the domain stream then decides, so a stale answer cannot
   * update a deleted or foreign host.
   */
  private async owner(fqdn: string): Promise<{ domainId: number; accountId: number } | null> {
    const doc = await this.projections.readModel(DOMAINS).findOne({ fqdn });
    if (doc) return { domainId: doc.id, accountId: doc.account_id };
    return this.registry.lookup(fqdn);
  }

  protected async decideOn(
    caller: Caller,
    fqdn: string,
    command: (at: string) => Parameters<typeof domainDecider.decide>[0],
  ): Promise<DomainResult> {
    const owner = await this.owner(normalizeFqdn(fqdn));
    if (!owner || owner.accountId !== caller.accountId) throw notFound(DOMAIN_NOT_FOUND);
    const stream = domainStream(owner.domainId);
    // Awaited, not returned: an async function resolving with a promise costs two more microtask turns.
    return await this.lock.run(stream, async () => {
      // Read-your-writes for the domains read model only: the audit log may trail by milliseconds.
      const result = await this.runner.run(
        stream,
        domainDecider,
        command(this.clock.now().toISOString()),
        metadataOf(caller),
        ['domains'],
      );
      return { state: result.state, changed: result.events.length > 0 };
    });
  }
}

@CommandHandler(CreateDomain)
export class CreateDomainHandler implements ICommandHandler<CreateDomain, DomainState> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly registry: FqdnRegistry,
    private readonly zones: ZoneQueries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly quota: PlanQuota,
    private readonly projections: ProjectionEngine,
    private readonly addresses: AddressPolicy,
  ) {}

  /** Contract §16: dynamic-DNS hosts per plan, counted over the account's live hosts. */
  execute(cmd: CreateDomain): Promise<DomainState> {
    const accountId = cmd.caller.accountId;
    const count = () => this.projections.readModel(DOMAINS).countDocuments({ account_id: accountId });
    return this.quota.admit(accountId, 'ddnsHosts', count, () => this.create(cmd));
  }

  private async create(cmd: CreateDomain): Promise<DomainState> {
    this.addresses.check(cmd.recordIp);
    const fqdn = normalizeFqdn(cmd.fqdn);
    const verified = await this.zones.verifiedZoneNames(cmd.caller.accountId);
    if (!fqdnAllowed(fqdn, this.config.ddnsZones, verified)) throw badRequest('invalid_fqdn', INVALID_FQDN_MESSAGE);
    const domainId = await this.registry.nextDomainId();
    if (
      !(await this.registry.claim(fqdn, { domainId, accountId: cmd.caller.accountId }, reservationMetadata(cmd.caller)))
    ) {
      throw conflict('fqdn_taken', `${fqdn} is already taken`);
    }
    try {
      const result = await this.runner.run(
        domainStream(domainId),
        domainDecider,
        {
          type: 'CreateDomain',
          domainId,
          accountId: cmd.caller.accountId,
          fqdn,
          recordType: cmd.recordType,
          recordIp: cmd.recordIp,
          ttl: DEFAULT_TTL,
          at: this.clock.now().toISOString(),
        },
        metadataOf(cmd.caller),
        ['domains'],
      );
      return result.state;
    } catch (e) {
      // The host was refused (bad address): give the name back at once.
      await this.registry.release(fqdn, domainId, reservationMetadata(cmd.caller));
      throw e;
    }
  }
}

/** `record_ip` names its family by its form; `ipv4`/`ipv6` name theirs. Both for one family: which one wins is unclear, so 400. */
function familiesOf(edit: HostEdit): Partial<Record<Family, string | null>> {
  const families: Partial<Record<Family, string | null>> = {};
  if (edit.ipv4 !== undefined) families.ipv4 = edit.ipv4;
  if (edit.ipv6 !== undefined) families.ipv6 = edit.ipv6;
  if (edit.recordIp !== undefined) {
    const ip = canonicalIp(edit.recordIp);
    const family = ip === null ? null : familyOf(ip);
    if (family === null) throw validationFailed('record_ip must be an IPv4 or IPv6 address');
    if (families[family] !== undefined)
      throw validationFailed(`record_ip and ${family} both set the ${family} address`);
    families[family] = edit.recordIp;
  }
  return families;
}

@CommandHandler(EditDomain)
export class EditDomainHandler extends DomainCommandHandler implements ICommandHandler<EditDomain, DomainResult> {
  constructor(
    runner: CommandRunner,
    registry: FqdnRegistry,
    projections: ProjectionEngine,
    lock: KeyedLock,
    @Inject(CLOCK) clock: Clock,
    private readonly addresses: AddressPolicy,
  ) {
    super(runner, registry, projections, lock, clock);
  }

  async execute(cmd: EditDomain): Promise<DomainResult> {
    const { ttl } = cmd.edit;
    if (
      cmd.edit.recordIp === undefined &&
      cmd.edit.ipv4 === undefined &&
      cmd.edit.ipv6 === undefined &&
      ttl === undefined
    )
      throw validationFailed('Send at least one of record_ip, ipv4, ipv6 or ttl');
    const families = familiesOf(cmd.edit);
    for (const family of ['ipv4', 'ipv6'] as const) {
      const ip = families[family];
      if (typeof ip === 'string') this.addresses.check(ip, cmd.edit.recordIp === ip ? 'record_ip' : family);
    }
    return this.decideOn(cmd.caller, cmd.fqdn, (at) => ({
      type: 'EditHost',
      accountId: cmd.caller.accountId,
      families,
      ...(ttl === undefined ? {} : { ttl }),
      at,
    }));
  }
}

@CommandHandler(DdnsUpdateHost)
export class DdnsUpdateHostHandler
  extends DomainCommandHandler
  implements ICommandHandler<DdnsUpdateHost, DomainResult>
{
  constructor(
    runner: CommandRunner,
    registry: FqdnRegistry,
    projections: ProjectionEngine,
    lock: KeyedLock,
    @Inject(CLOCK) clock: Clock,
    private readonly addresses: AddressPolicy,
  ) {
    super(runner, registry, projections, lock, clock);
  }

  // Not async: it hands decideOn's promise on as it is (every DDNS update passes here; decision 0126).
  execute(cmd: DdnsUpdateHost): Promise<DomainResult> {
    try {
      // The DDNS endpoints refuse such addresses first (badip); this keeps every path to the stream in line.
      this.addresses.checkChanges(cmd.ipv4, cmd.ipv6);
    } catch (e) {
      return Promise.reject(e as Error);
    }
    return this.decideOn(cmd.caller, cmd.fqdn, (at) => ({
      type: 'DdnsUpdate',
      accountId: cmd.caller.accountId,
      ipv4: cmd.ipv4,
      ipv6: cmd.ipv6,
      at,
    }));
  }
}

@CommandHandler(DeleteDomain)
export class DeleteDomainHandler extends DomainCommandHandler implements ICommandHandler<DeleteDomain, void> {
  constructor(
    runner: CommandRunner,
    registry: FqdnRegistry,
    projections: ProjectionEngine,
    lock: KeyedLock,
    @Inject(CLOCK) clock: Clock,
  ) {
    super(runner, registry, projections, lock, clock);
  }

  async execute(cmd: DeleteDomain): Promise<void> {
    const { state } = await this.decideOn(cmd.caller, cmd.fqdn, (at) => ({
      type: 'DeleteDomain',
      accountId: cmd.caller.accountId,
      at,
    }));
    await this.registry.release(state.fqdn, state.id, reservationMetadata(cmd.caller));
  }
}

export const DOMAIN_COMMAND_HANDLERS = [
  CreateDomainHandler,
  EditDomainHandler,
  DdnsUpdateHostHandler,
  DeleteDomainHandler,
];
