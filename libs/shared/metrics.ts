import perfHooks, { IntervalHistogram, PerformanceObserver } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Starts prom-client's default metrics on `registry` and answers how to stop them. Two of them keep
 * running in the process on their own and prom-client 15 offers no way to stop them: a
 * PerformanceObserver of GC pauses and an event-loop-delay monitor. Both are held by Node itself and
 * hold the registry, whose gauges hold the app: an app closed without stopping them stays in memory
 * for the life of the process (in the tests, every suite's apps stayed in the jest worker; decision
 * 0101). They are caught as prom-client makes them, in this synchronous call, so they can be stopped.
 */
function startDefaultMetrics(registry: Registry): () => void {
  const observers: PerformanceObserver[] = [];
  const monitors: IntervalHistogram[] = [];
  const { observe } = PerformanceObserver.prototype;
  const { monitorEventLoopDelay } = perfHooks;
  PerformanceObserver.prototype.observe = function (this: PerformanceObserver, ...args) {
    observers.push(this);
    return observe.apply(this, args);
  };
  perfHooks.monitorEventLoopDelay = (options) => {
    const monitor = monitorEventLoopDelay(options);
    monitors.push(monitor);
    return monitor;
  };
  try {
    collectDefaultMetrics({ register: registry });
  } finally {
    PerformanceObserver.prototype.observe = observe;
    perfHooks.monitorEventLoopDelay = monitorEventLoopDelay;
  }
  return () => {
    for (const observer of observers) observer.disconnect();
    for (const monitor of monitors) monitor.disable();
  };
}

/** The Prometheus registry of the process; every role adds its own series here. */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  private readonly stopDefaultMetrics = startDefaultMetrics(this.registry);

  /** Stops what keeps collecting in the background (the app is closing): the registry can then be freed. */
  close(): void {
    this.stopDefaultMetrics();
  }

  /** The labelled series of each method, route and status: prom-client hashes the labels on every call otherwise. */
  private readonly requestSeries = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<string> }>();

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = {
        count: this.requests.labels(method, route, String(status)),
        duration: this.durations.labels(method, route),
      };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  counter(name: string, help: string, labelNames: string[] = []): Counter<string> {
    return (
      (this.registry.getSingleMetric(name) as Counter<string>) ??
      new Counter({ name, help, labelNames, registers: [this.registry] })
    );
  }

  histogram(name: string, help: string, buckets: number[], labelNames: string[] = []): Histogram<string> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<string>) ??
      new Histogram({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }

  gauge(
    name: string,
    help: string,
    collect: (g: Gauge<string>) => void | Promise<void>,
    labelNames: string[] = [],
  ): Gauge<string> {
    return (
      (this.registry.getSingleMetric(name) as Gauge<string>) ??
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        async collect() {
          await collect(this);
        },
      })
    );
  }
}

export const METRICS = Symbol('METRICS');
