import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/principal';
import { EVENT_STORE, EventStore } from '../eventstore/event-store.port';
import { ProjectionEngine } from '../projection-engine/projection-engine';
import { READ_STORE, ReadStore } from '../readstore/read-store.port';
import { Metrics, METRICS } from '../shared/metrics';

@Public()
@Controller()
export class OpsController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly projections: ProjectionEngine,
    @Inject(METRICS) private readonly metrics: Metrics,
  ) {}

  @Get('health')
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const check = (p: Promise<void>) =>
      p.then(
        () => 'ok',
        () => 'unavailable',
      );
    const [eventStore, readStore] = await Promise.all([check(this.store.ping()), check(this.readStore.ping())]);
    const projections = await this.projections.status().catch(() => []);
    const ok = eventStore === 'ok' && readStore === 'ok';
    void reply.status(ok ? 200 : 503);
    return {
      status: ok ? 'ok' : 'degraded',
      event_store: { kind: this.store.kind, status: eventStore },
      read_store: { kind: this.readStore.kind, status: readStore },
      projections: projections.map((p) => ({ name: p.name, position: p.position, lag: p.lag, state: p.state })),
    };
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  metricsText() {
    return this.metrics.registry.metrics();
  }
}
