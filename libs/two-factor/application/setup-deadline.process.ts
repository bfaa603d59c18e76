import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import {
  ExpireSetupCommand,
  SetupFact,
  setupDeadlineProcess,
  SetupDeadlineState,
} from '../domain/setup-deadline.process-manager';
import { ExpireTwoFactorSetup } from './two-factor.commands';

/** How often due deadlines are looked for; the verify decision itself never waits for this. */
export const SETUP_TIMER_POLL_MS = 1_000;

/**
 * Runs the 2FA setup deadline process manager (`../domain/setup-deadline.process-manager`)
 * on the process-manager runtime, in the worker role, in the one worker holding its
 * lease. Its timers are facts in its own streams, so a deadline falls due after a restart
 * just as it would have without one.
 */
@Injectable()
export class SetupDeadlineProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<SetupDeadlineState, SetupFact, ExpireSetupCommand> | null = null;

  constructor(
    private readonly commands: CommandBus,
    private readonly processManagers: WorkerProcessManagers,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(
      setupDeadlineProcess,
      async (command, context) => {
        await this.commands.execute(new ExpireTwoFactorSetup(command.accountId, command.setupId, context));
      },
      { timerPollMs: SETUP_TIMER_POLL_MS },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up and expires every setup due by the clock's now; returns how many deadlines fired. */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
