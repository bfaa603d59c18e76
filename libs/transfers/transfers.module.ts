import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ZonesModule } from '../zones/zones.module';
import { TransferQueries } from './application/transfer.queries';
import { TransferStatus } from './application/transfer-status';
import { TRANSFER_COMMAND_HANDLERS } from './application/transfer.handlers';
import { SecondariesController, TsigKeysController } from './http/transfers.controller';

/** Zone transfers' API side (contract §18): TSIG keys and per-zone secondaries. The DNS side is libs/dns-transfer. */
@Module({
  imports: [AccountsModule, ZonesModule],
  controllers: [TsigKeysController, SecondariesController],
  providers: [TransferQueries, TransferStatus, ...TRANSFER_COMMAND_HANDLERS],
  exports: [TransferStatus],
})
export class TransfersModule {}
