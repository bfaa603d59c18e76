import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Coordination, COORDINATION } from '../../consumers/coordination';
import { DAILY_JOB_TIMER_POLL_MS, dailyJobProcess, DailyJobFact, DailyJobState, RunDailyJob } from '../../consumers/daily-job.process-manager';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { startWorkerProcessManager } from '../../consumers/worker-process-manager';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { LOGGER, Logger } from '../../shared/logger';
import { CertificateRenewalJob } from './renewal.job';

/**
 * The daily certificate job (03:17 UTC) as a process manager: the first certificate
 * issued starts the schedule, and each day one worker (the lease holder) runs it. A
 * command sent again after a crash is harmless: a renewal already started is refused by
 * the decider (and reported as skipped), an expired certificate does not expire twice.
 */
export const certificateRenewalProcess = dailyJobProcess('certificate-renewals', { hour: 3, minute: 17 }, ['CertificateIssued']);

@Injectable()
export class CertificateRenewalProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<DailyJobState, DailyJobFact, RunDailyJob> | null = null;

  constructor(
    private readonly job: CertificateRenewalJob,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(COORDINATION) private readonly coordination: Coordination,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { store, coordination, clock, config, logger } = this;
    this.runtime = await startWorkerProcessManager(certificateRenewalProcess, { store, coordination, clock, config, logger }, async (command) => {
      const result = await this.job.run(new Date(command.at));
      this.logger.info('certificate renewal job', { night: command.night, renewals: result.renewals_started.length, expired: result.expired.length });
    }, { timerPollMs: DAILY_JOB_TIMER_POLL_MS });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up and runs the days due by the clock's now (tests); returns how many fired. */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
