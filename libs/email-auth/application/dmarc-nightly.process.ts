import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  DAILY_JOB_TIMER_POLL_MS,
  DailyJobFact,
  DailyJobState,
  RunDailyJob,
} from '../../consumers/daily-job.process-manager';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import { dmarcNightlyProcess } from '../domain/dmarc-nightly.process-manager';
import { DmarcNightlyJob } from './dmarc-nightly.job';

@Injectable()
export class DmarcNightlyProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<DailyJobState, DailyJobFact, RunDailyJob> | null = null;

  constructor(
    private readonly job: DmarcNightlyJob,
    private readonly processManagers: WorkerProcessManagers,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(
      dmarcNightlyProcess,
      async (command) => {
        await this.job.run(new Date(command.at));
      },
      { timerPollMs: DAILY_JOB_TIMER_POLL_MS },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up and runs the nights due by the clock's now (tests); returns how many fired. */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
