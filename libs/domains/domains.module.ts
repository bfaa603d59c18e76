import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ZonesModule } from '../zones/zones.module';
import { DOMAIN_COMMAND_HANDLERS } from './application/domain.handlers';
import { AddressPolicy } from './application/address-policy';
import { DomainQueries } from './application/domain.queries';
import { FqdnRegistry } from './application/fqdn-registry';
import { KeyedLock } from './application/keyed-lock';
import { DomainsController } from './http/domains.controller';

@Module({
  imports: [AccountsModule, ZonesModule],
  controllers: [DomainsController],
  providers: [AddressPolicy, DomainQueries, FqdnRegistry, KeyedLock, ...DOMAIN_COMMAND_HANDLERS],
  exports: [DomainQueries, FqdnRegistry],
})
export class DomainsModule {}
