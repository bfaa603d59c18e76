import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DAILY_JOB_TIMER_POLL_MS, dailyJobProcess, DailyJobFact, DailyJobState, RunDailyJob } from '../../consumers/daily-job.process-manager';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import { EMAIL_AUTH_EVENT_TYPES } from '../domain/email-auth.events';
import { DmarcNightlyJob } from './dmarc-nightly.job';

/**
 * The DMARC nightly job (seed: 02:00 UTC) as a process manager: a zone's first email
 * authentication setting starts the schedule, and each night one worker (the lease
 * holder) runs the job. The job records a night once per zone (event ids derived from
 * zone and night), so a command sent again after a crash changes nothing.
 */
export const dmarcNightlyProcess = dailyJobProcess(
  'dmarc-nightly',
  { hour: 2, minute: 0 },
  // The job's own record of a night is no sign of new work (and would add a fact to the schedule every night).
  EMAIL_AUTH_EVENT_TYPES.filter((t) => t !== 'DmarcStageMetricsRecorded'),
);

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
