import { AppConfig } from '../shared/config';
import { Clock } from '../shared/clock';
import { Logger } from '../shared/logger';
import { EventStore } from '../eventstore/event-store.port';
import { Coordination } from './coordination';
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
  options: Pick<ProcessManagerRuntimeOptions<C>, 'timerPollMs' | 'onRunning'> = {},
): Promise<ProcessManagerRuntime<S, F, C> | null> {
  if (!deps.config.roles.includes('worker')) return null;
  const runtime = new ProcessManagerRuntime(manager, {
    store: deps.store,
    coordination: deps.coordination,
    now: () => deps.clock.now(),
    send,
    leaseTtlMs: deps.config.leaseTtlMs,
    log: (msg, extra) => deps.logger.info(msg, { ...(extra as Record<string, unknown>), process_manager: manager.name }),
    ...options,
  });
  await runtime.start();
  return runtime;
}
