import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { validationFailed } from '../../shared/errors';
import { targetProblem } from '../../shared/target-ranges';
import { canonicalIp } from '../domain/addresses';
import { FamilyChange } from '../domain/domain.decider';

/**
 * Contract §16: a host's address is also an uptime target, so loopback, link-local,
 * private, CGNAT, multicast, broadcast and unspecified addresses (in any IPv6 form) are
 * refused unless the operator sets ALLOW_PRIVATE_TARGETS=true. A malformed address is
 * left to the domain decider, which names the family it expected.
 */
@Injectable()
export class AddressPolicy {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  check(address: string, field = 'record_ip'): void {
    const ip = canonicalIp(address);
    const problem = ip === null ? null : targetProblem(ip, this.config.allowPrivateTargets);
    if (problem) throw validationFailed(`${field}: ${ip} is ${problem}, which is not accepted as a host's address`);
  }

  checkChanges(...changes: FamilyChange[]): void {
    for (const c of changes) if (c.kind === 'set') this.check(c.ip, 'myip');
  }
}
