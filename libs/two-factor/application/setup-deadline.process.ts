import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { CLOCK, Clock } from '../../shared/clock';
import { Logger, LOGGER } from '../../shared/logger';
import { ExpireTwoFactorSetup } from './two-factor.commands';
import { TwoFactorQueries } from './two-factor.queries';

/** How often due setups are looked for; the verify decision itself never waits for this. */
export const SETUP_SWEEP_INTERVAL_MS = 15_000;
const SWEEP_BATCH = 200;

/**
 * The 2FA setup process manager. Its schedule is a fact: `TwoFactorSetupStarted`
 * carries `expires_at`, and the two_factor read model (fed by the durable
 * subscription) indexes pending deadlines. A sweep sends `ExpireTwoFactorSetup` for
 * each one that is due, so the stream records the outcome. After a restart the first
 * sweep picks up whatever fell due meanwhile; a setup still inside its deadline stays
 * valid because its state lives in the stream. Runs in the worker role only; several
 * workers may sweep at once, the decider and deterministic event ids keep it single.
 */
@Injectable()
export class SetupDeadlineProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly queries: TwoFactorQueries,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.roles.includes('worker')) return;
    const tick = () => {
      this.sweep().catch((e) => this.logger.error('2fa setup sweep failed', { error: String(e) }));
    };
    this.timer = setInterval(tick, SETUP_SWEEP_INTERVAL_MS);
    this.timer.unref();
    tick();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Expires every setup due by the clock's now; returns how many it expired. One sweep at a time. */
  sweep(): Promise<number> {
    this.running ??= this.expireDue().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async expireDue(): Promise<number> {
    let expired = 0;
    for (const doc of await this.queries.setupsDueBy(this.clock.now(), SWEEP_BATCH)) {
      if (!doc.pending_setup) continue;
      if (await this.commands.execute(new ExpireTwoFactorSetup(doc.account_id, doc.pending_setup.setup_id))) expired += 1;
    }
    return expired;
  }
}
