import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Coordination, COORDINATION } from '../../consumers/coordination';
import { DAILY_JOB_TIMER_POLL_MS, dailyJobProcess, DailyJobFact, DailyJobState, RunDailyJob } from '../../consumers/daily-job.process-manager';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { startWorkerProcessManager } from '../../consumers/worker-process-manager';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { LOGGER, Logger } from '../../shared/logger';
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
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(COORDINATION) private readonly coordination: Coordination,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { store, coordination, clock, config, logger } = this;
    this.runtime = await startWorkerProcessManager(dmarcNightlyProcess, { store, coordination, clock, config, logger }, async (command) => {
      await this.job.run(new Date(command.at));
    }, { timerPollMs: DAILY_JOB_TIMER_POLL_MS });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up and runs the nights due by the clock's now (tests); returns how many fired. */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
