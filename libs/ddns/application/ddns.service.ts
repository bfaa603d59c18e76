import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { actorOf } from '../../auth/principal';
import { Caller, DdnsUpdateHost } from '../../domains/application/domain.commands';
import { DomainResult } from '../../domains/application/domain.handlers';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { isHostname } from '../../shared/fqdn';
import { AppError } from '../../shared/errors';
import { HostResult, ResultWord } from '../domain/answers';
import {
  AddressChanges,
  addressChanges,
  BAD_IP,
  hostnames,
  isOffline,
  MAX_HOSTS,
  Params,
} from '../domain/ddns-request';
import { DdnsIdentity } from './ddns-authenticator';

export interface DdnsOutcome {
  /** One result per host in request order, or a single account-level result (hostname null). */
  results: HostResult[];
  changes: AddressChanges;
}

const accountLevel = (result: ResultWord): HostResult[] => [{ hostname: null, result, addresses: null }];

/**
 * One dyndns2 request, after authentication: which hosts, which addresses, and the
 * answer word for each. Each host is its own command, so one host's refusal does not
 * undo another's update.
 */
@Injectable()
export class DdnsService {
  constructor(
    private readonly commands: CommandBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `correlationId`: the request's id, which every event of the update carries (decision 0109). */
  async update(identity: DdnsIdentity, params: Params, sourceIp: string, correlationId?: string): Promise<DdnsOutcome> {
    const changes = addressChanges(params, sourceIp, this.config.allowPrivateTargets);
    // ddns.md: the whole request is refused, nothing changes, the caller's address is never used instead.
    if (changes === BAD_IP)
      return { results: accountLevel('badip'), changes: { ipv4: { kind: 'keep' }, ipv6: { kind: 'keep' } } };
    if (isOffline(params)) return { results: accountLevel('!donator'), changes };
    const requested = hostnames(params);
    const hosts = requested.length ? requested : identity.hostFromUsername ? [identity.hostFromUsername] : [];
    if (hosts.length === 0) return { results: accountLevel('notfqdn'), changes };
    if (hosts.length > MAX_HOSTS) return { results: accountLevel('numhost'), changes };
    const caller: Caller = {
      accountId: identity.principal.accountId,
      actor: `ddns:${actorOf(identity.principal)}`,
      sourceIp,
      correlationId,
    };
    const results: HostResult[] = [];
    // In order, one at a time: a request naming a host twice gets good then nochg, as clients expect.
    for (const host of hosts) results.push(await this.updateHost(caller, host, changes));
    return { results, changes };
  }

  private async updateHost(caller: Caller, fqdn: string, changes: AddressChanges): Promise<HostResult> {
    if (!isHostname(fqdn)) return { hostname: fqdn, result: 'notfqdn', addresses: null };
    try {
      const outcome: DomainResult = await this.commands.execute(
        new DdnsUpdateHost(caller, fqdn, changes.ipv4, changes.ipv6),
      );
      return { hostname: fqdn, result: outcome.changed ? 'good' : 'nochg', addresses: outcome.state.addresses };
    } catch (e) {
      return { hostname: fqdn, result: wordFor(e), addresses: null };
    }
  }
}

function wordFor(e: unknown): ResultWord {
  if (e instanceof AppError) {
    if (e.status === 404) return 'nohost';
    if (e.code === 'abuse') return 'abuse';
    if (e.code === 'validation_failed') return 'badip';
  }
  // Anything else (a conflict that outlasted the retries, a store error): not stored, the client retries.
  return 'dnserr';
}
