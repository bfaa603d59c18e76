import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import {
  accountDeletionProcess,
  DeletionFact,
  DeletionState,
  RemoveAccountDataCommand,
} from '../domain/account-deletion.process-manager';
import { AccountDataRemovalJob } from './account-data-removal.job';

/**
 * Runs the account-deletion process manager in the worker holding its lease: a worker
 * killed midway leaves the command issued and not completed, and the next holder sends it
 * again (decision 0090).
 */
@Injectable()
export class AccountDeletionProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<DeletionState, DeletionFact, RemoveAccountDataCommand> | null = null;

  constructor(
    private readonly removal: AccountDataRemovalJob,
    private readonly processManagers: WorkerProcessManagers,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(accountDeletionProcess, async (command, context) => {
      await this.removal.run(command.accountId, command.sourceIp, context.commandId);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up and sends what is due (tests). */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
