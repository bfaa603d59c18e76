import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { DomainsModule } from '../domains/domains.module';
import { DdnsAuthenticator } from './application/ddns-authenticator';
import { DdnsService } from './application/ddns.service';
import { DdnsController } from './http/ddns.controller';

@Module({
  imports: [AccountsModule, DomainsModule],
  controllers: [DdnsController],
  providers: [DdnsAuthenticator, DdnsService],
})
export class DdnsModule {}
