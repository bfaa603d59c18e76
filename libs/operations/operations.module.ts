import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AdminController } from './admin.controller';
import { OpsController } from './ops.controller';

@Module({
  imports: [AccountsModule],
  controllers: [AdminController, OpsController],
})
export class OperationsModule {}
