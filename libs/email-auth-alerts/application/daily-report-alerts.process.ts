import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Coordination, COORDINATION } from '../../consumers/coordination';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { CLOCK, Clock } from '../../shared/clock';
import { Logger, LOGGER } from '../../shared/logger';
import { EvaluateAlert } from '../domain/alert.decider';
import { DailyReportFact, dailyReportAlerts, DailyReportState } from '../domain/daily-report-alerts.process-manager';
import { AlertWriter } from './alert.writer';

/** Day evaluations are due at most daily per domain; a minute's delay costs nothing. */
const TIMER_POLL_MS = 60_000;

/**
 * Runs the daily report alerts (`../domain/daily-report-alerts.process-manager`) on the
 * process-manager runtime, in the worker role, in the one worker holding its lease.
 */
@Injectable()
export class DailyReportAlertsProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<DailyReportState, DailyReportFact, EvaluateAlert> | null = null;

  constructor(
    private readonly writer: AlertWriter,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(COORDINATION) private readonly coordination: Coordination,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.roles.includes('worker')) return;
    this.runtime = new ProcessManagerRuntime(dailyReportAlerts, {
      store: this.store,
      coordination: this.coordination,
      now: () => this.clock.now(),
      send: async (command, context) => {
        await this.writer.evaluate(command, context.commandId);
      },
      leaseTtlMs: this.config.leaseTtlMs,
      timerPollMs: TIMER_POLL_MS,
      log: (msg, extra) => this.logger.info(msg, { ...(extra as Record<string, unknown>), process_manager: dailyReportAlerts.name }),
    });
    await this.runtime.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up with the reports and judges every day due by the clock's now; returns how many days were judged. */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
