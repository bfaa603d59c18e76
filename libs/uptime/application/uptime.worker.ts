import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { CLOCK, Clock } from '../../shared/clock';
import { Logger, LOGGER } from '../../shared/logger';
import { METRICS, Metrics } from '../../shared/metrics';
import { CheckSink, EventStoreCheckSink } from './check-recorder';
import { ReadModelTargets } from './targets';
import { UptimeScheduler } from './uptime-scheduler';
import { uptimeSettings } from './uptime-settings';

/**
 * The uptime scheduler in the `worker` role: ticks the wheel once per slot from a real
 * timer, reading "now" from the injected clock (so a test's manual clock decides what is
 * due and the test drives `scheduler.runDue()` itself).
 */
@Injectable()
export class UptimeWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly scheduler: UptimeScheduler;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    streams: EventStreams,
    projections: ProjectionEngine,
    @Inject(CLOCK) clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) metrics: Metrics,
  ) {
    const settings = uptimeSettings(config);
    const checks = metrics.counter('uptime_checks_total', 'Uptime checks recorded by outcome', ['result']);
    const events = new EventStoreCheckSink(streams, `worker:${settings.partition.index}`);
    const sink: CheckSink = {
      async record(target, at, result) {
        await events.record(target, at, result);
        checks.inc({ result: result.up ? 'up' : 'down' });
      },
    };
    this.scheduler = new UptimeScheduler(settings, new ReadModelTargets(projections), sink, clock, (msg, fields) =>
      logger.warn(msg, fields),
    );
  }

  onApplicationBootstrap(): void {
    if (!this.config.roles.includes('worker')) return;
    const tick = () => {
      this.scheduler.tick().catch((e) => this.logger.error('uptime tick failed', { error: String(e) }));
    };
    this.timer = setInterval(tick, this.scheduler.wheel.slotMs);
    this.timer.unref();
    tick();
  }

  /**
   * Stops the real timer so that only the caller turns the wheel (`scheduler.runDue`):
   * tests do, so no timer tick can hand out a slot between their clock move and their call.
   */
  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopTimer();
    // Checks in flight finish (bounded by the timeout) so their results are not lost.
    await this.scheduler.idle();
  }
}
