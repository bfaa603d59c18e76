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
}

export const DEFAULT_CONCURRENCY = 256;

const intFrom = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
};

/**
 * Reads the uptime settings: the shared ones from AppConfig, and the worker-only keys
 * (WORKER_INDEX, WORKER_COUNT, UPTIME_CONCURRENCY) from the environment until they join
 * AppConfig.
 */
export function uptimeSettings(config: AppConfig, env: NodeJS.ProcessEnv = process.env): UptimeSettings {
  const count = intFrom(env, 'WORKER_COUNT', 1, 1);
  const index = intFrom(env, 'WORKER_INDEX', 0, 0);
  if (index >= count) throw new Error(`WORKER_INDEX (${index}) must be below WORKER_COUNT (${count})`);
  if (config.uptimeIntervalSeconds < 1) throw new Error('UPTIME_INTERVAL_SECONDS must be at least 1');
  if (!config.uptimeCheckPorts.length || config.uptimeCheckPorts.some((p) => p < 1 || p > 65535)) {
    throw new Error('UPTIME_CHECK_PORTS must list ports between 1 and 65535');
  }
  return {
    intervalMs: config.uptimeIntervalSeconds * 1000,
    ports: config.uptimeCheckPorts,
    timeoutMs: Math.max(1, config.uptimeTimeoutMs),
    concurrency: intFrom(env, 'UPTIME_CONCURRENCY', DEFAULT_CONCURRENCY, 1),
    partition: { index, count },
  };
}

/**
 * 100 ms slots: a second's checks start in ten small batches rather than one burst, which
 * keeps the event loop free enough that connect times measure the network, not the queue.
 */
export const SLOT_MS = 10;
export const slotCountFor = (intervalMs: number): number => Math.max(1, Math.round(intervalMs / SLOT_MS));
