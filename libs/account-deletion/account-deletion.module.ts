import { Module } from '@nestjs/common';
import { AccountDeletionProcess } from './application/account-deletion.process';
import { AccountDataRemovalJob } from './application/account-data-removal.job';

/** Account deletion's cross-context part (decision 0090): the process manager and the removal it sends. */
@Module({
  providers: [AccountDeletionProcess, AccountDataRemovalJob],
})
export class AccountDeletionModule {}
