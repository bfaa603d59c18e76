import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { CLOCK, Clock } from '../shared/clock';
import { LOGGER, Logger } from '../shared/logger';
import { EVENT_STORE, EventStore } from '../eventstore/event-store.port';
import { COORDINATION, Coordination } from './coordination';
import { ProcessManager } from './process-manager';
import { CommandContext, ProcessManagerRuntime, ProcessManagerRuntimeOptions } from './process-manager-runtime';

/** What every process manager of the service is wired with. */
export interface ProcessManagerDeps {
  store: EventStore;
  coordination: Coordination;
  clock: Clock;
  config: AppConfig;
  logger: Logger;
}

/**
 * Starts `manager` on the runtime where this process has the worker role (null
 * elsewhere): under its lease, on the service clock, with the lease TTL of the config and
 * its log lines named after it. The wiring classes (`*.process.ts`) only say what sending
 * a command does.
 */
export async function startWorkerProcessManager<S, F, C>(
  manager: ProcessManager<S, F, C>,
  deps: ProcessManagerDeps,
  send: (command: C, context: CommandContext) => Promise<void>,
  options: Pick<ProcessManagerRuntimeOptions<C>, 'timerPollMs' | 'onRunning' | 'concurrentProcesses'> = {},
): Promise<ProcessManagerRuntime<S, F, C> | null> {
  if (!deps.config.roles.includes('worker')) return null;
  const runtime = new ProcessManagerRuntime(manager, {
    store: deps.store,
    coordination: deps.coordination,
    now: () => deps.clock.now(),
    send,
    leaseTtlMs: deps.config.leaseTtlMs,
    log: (msg, extra) =>
      deps.logger.info(msg, { ...(extra as Record<string, unknown>), process_manager: manager.name }),
    ...options,
  });
  await runtime.start();
  return runtime;
}

/**
 * The service's process-manager wiring as one injectable: the wiring classes (`*.process.ts`)
 * take this and the service their commands go to, nothing else.
 */
@Injectable()
export class WorkerProcessManagers {
  private readonly deps: ProcessManagerDeps;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(COORDINATION) coordination: Coordination,
    @Inject(CLOCK) clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.deps = { store, coordination, clock, config, logger };
  }

  /** `startWorkerProcessManager` with the service's stores, clock, config and logger. */
  start<S, F, C>(
    manager: ProcessManager<S, F, C>,
    send: (command: C, context: CommandContext) => Promise<void>,
    options: Pick<ProcessManagerRuntimeOptions<C>, 'timerPollMs' | 'onRunning' | 'concurrentProcesses'> = {},
  ): Promise<ProcessManagerRuntime<S, F, C> | null> {
    return startWorkerProcessManager(manager, this.deps, send, options);
  }
}
