import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import {
  ISSUANCE_TIMER_POLL_MS,
  IssuanceFact,
  issuanceProcess,
  IssuanceProcessState,
  RunIssuanceStepCommand,
} from '../domain/issuance.process-manager';
import { RunIssuanceStep } from './certificate.commands';
import { IssuanceSteps } from './issuance-steps';

/**
 * Wiring of the `certificate-issuance-steps` process manager (../domain/issuance.process-manager.ts):
 * its `RunIssuanceStep` commands go to the command bus. Certificates run side by side
 * (`concurrentProcesses`), each one step at a time, so one slow CA answer holds up only
 * its own certificate and fifty certificates' records share group commits; the runtime's
 * checkpoint stays before a step that has not finished, so kill -9 mid-step runs it again.
 */
@Injectable()
export class IssuanceProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<IssuanceProcessState, IssuanceFact, RunIssuanceStepCommand> | null = null;

  constructor(
    private readonly commands: CommandBus,
    private readonly processManagers: WorkerProcessManagers,
    private readonly steps: IssuanceSteps,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(
      issuanceProcess(this.config.acmePropagationDelayMs),
      async (command, context) => {
        await this.commands.execute(new RunIssuanceStep(command.certificateId, command.revision, context));
      },
      // A lost lease stops this process's chains of steps before the next holder resumes them.
      {
        timerPollMs: ISSUANCE_TIMER_POLL_MS,
        concurrentProcesses: true,
        onRunning: (running) => this.steps.setRunning(running),
      },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up, fires the waits due by the clock's now, and lets the steps they led to finish (tests). */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
