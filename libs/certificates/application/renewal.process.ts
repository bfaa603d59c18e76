import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  DAILY_JOB_TIMER_POLL_MS,
  DailyJobFact,
  DailyJobState,
  RunDailyJob,
} from '../../consumers/daily-job.process-manager';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import { LOGGER, Logger } from '../../shared/logger';
import { certificateRenewalProcess } from '../domain/renewal.process-manager';
import { CertificateRenewalJob } from './renewal.job';

@Injectable()
export class CertificateRenewalProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<DailyJobState, DailyJobFact, RunDailyJob> | null = null;

  constructor(
    private readonly job: CertificateRenewalJob,
    private readonly processManagers: WorkerProcessManagers,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(
      certificateRenewalProcess,
      async (command) => {
        const result = await this.job.run(new Date(command.at));
        this.logger.info('certificate renewal job', {
          night: command.night,
          renewals: result.renewals_started.length,
          expired: result.expired.length,
        });
      },
      { timerPollMs: DAILY_JOB_TIMER_POLL_MS },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up and runs the days due by the clock's now (tests); returns how many fired. */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
