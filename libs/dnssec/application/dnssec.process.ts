import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import {
  DnssecFact,
  DnssecProcessCommand,
  DnssecProcessState,
  dnssecZoneProcess,
} from '../domain/dnssec.process-manager';
import { AdvanceDnssecRollover, CheckParentDs, RefreshDnssecSignatures } from './dnssec.commands';
import { dnssecTimings } from './timings';

/** Due timers are looked for this often (the fast-clock tests call runDue instead). */
const DNSSEC_TIMER_POLL_MS = 1_000;

/**
 * Runs the DNSSEC process manager (`../domain/dnssec.process-manager`) on the consumer
 * runtime in the worker holding its lease: signature refresh, rollover steps and the
 * parent-DS checks happen here, never in a request path.
 */
@Injectable()
export class DnssecProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<DnssecProcessState, DnssecFact, DnssecProcessCommand> | null = null;

  constructor(
    private readonly commands: CommandBus,
    private readonly processManagers: WorkerProcessManagers,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(
      dnssecZoneProcess(dnssecTimings(this.config)),
      async (command) => {
        const target = { zone: command.zone, zoneId: command.zoneId, accountId: command.accountId };
        const at = new Date(command.at);
        if (command.type === 'RefreshSignatures') await this.commands.execute(new RefreshDnssecSignatures(target, at));
        else if (command.type === 'ObserveParentDs') await this.commands.execute(new CheckParentDs(target, at));
        else await this.commands.execute(new AdvanceDnssecRollover(target, command.phase!, at));
      },
      { timerPollMs: Math.min(DNSSEC_TIMER_POLL_MS, this.config.dnssecTimerPollMs) },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up and fires what is due by the clock's now (tests). */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
