import { AppConfig } from '../../shared/config';
import { Partition } from './hashing';

/** Everything the uptime worker is tuned by. */
export interface UptimeSettings {
  intervalMs: number;
  ports: number[];
  timeoutMs: number;
  /** Checks in flight at once (UPTIME_CONCURRENCY). */
  concurrency: number;
  /** This worker's share of the domains (WORKER_INDEX of WORKER_COUNT). */
  partition: Partition;
  /** ALLOW_PRIVATE_TARGETS: off, addresses in refused ranges are never connected to (contract §16). */
  allowPrivateTargets: boolean;
}

/** Reads the uptime worker's settings from the service configuration, checking their ranges. */
export function uptimeSettings(config: AppConfig): UptimeSettings {
  if (config.uptimeIntervalSeconds < 1) throw new Error('UPTIME_INTERVAL_SECONDS must be at least 1');
  if (!config.uptimeCheckPorts.length || config.uptimeCheckPorts.some((p) => p < 1 || p > 65535)) {
    throw new Error('UPTIME_CHECK_PORTS must list ports between 1 and 65535');
  }
  return {
    intervalMs: config.uptimeIntervalSeconds * 1000,
    ports: config.uptimeCheckPorts,
    timeoutMs: Math.max(1, config.uptimeTimeoutMs),
    concurrency: config.uptimeConcurrency,
    partition: { index: config.workerIndex, count: config.workerCount },
    allowPrivateTargets: config.allowPrivateTargets,
  };
}

/**
 * 50 ms slots: a second's checks start in twenty small batches rather than one burst, which
 * keeps the event loop free enough that connect times measure the network, not the queue.
 */
export const SLOT_MS = 50;
/** Long intervals get longer slots rather than an unbounded wheel (36k slots: 50 ms up to a 30-minute interval). */
export const MAX_SLOTS = 36_000;
export const slotCountFor = (intervalMs: number): number =>
  Math.min(MAX_SLOTS, Math.max(1, Math.round(intervalMs / SLOT_MS)));
