import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import { EvaluateAlert } from '../domain/alert.decider';
import { DailyReportFact, dailyReportAlerts, DailyReportState } from '../domain/daily-report-alerts.process-manager';
import { ObserveAlert } from './alert.commands';

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
    private readonly commands: CommandBus,
    private readonly processManagers: WorkerProcessManagers,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(
      dailyReportAlerts,
      async (command, context) => {
        await this.commands.execute(new ObserveAlert(command, context.commandId));
      },
      { timerPollMs: TIMER_POLL_MS },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up with the reports and judges every day due by the clock's now; returns how many days were judged. */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
