import { Module } from '@nestjs/common';
import { AccountDeletionProcess } from './application/account-deletion.process';
import { RemoveAccountDataHandler } from './application/account-deletion.handlers';

/** Account deletion's cross-context part (decision 0090): the process manager and the removal it sends. */
@Module({
  providers: [AccountDeletionProcess, RemoveAccountDataHandler],
})
export class AccountDeletionModule {}
