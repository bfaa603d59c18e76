/** What the main thread and the DNS thread (dns-thread.ts) say to each other. */
import type { MessagePort } from 'node:worker_threads';
import type { AnsweredQuery } from '../dns-server';
import type { QueryLogEndpoint } from '../dns-analytics/application/query-log-channel';
import type { DnsRoleSettings, TransferActivity } from './dns-role';
import type { QueryTallyReport } from './query-tally';
import type { UpdateRequest } from '../dns-transfer/transfer-service';

export interface DnsThreadData extends DnsRoleSettings {
  eventsFile: string;
  /** Send every answered query (an analytics sink is plugged in), not just the tally. */
  forwardQueries: boolean;
  /** Hands answered queries straight to the query-log thread instead (a shared-memory ring). */
  queryLog?: QueryLogEndpoint;
  /** How often the thread's subscription looks for commits it was not told about (other processes). */
  pollIntervalMs?: number;
  /**
   * The main thread's commit counter (slot COMMITS) and whether the thread sleeps until
   * woken (slot SLEEPING): cheaper than a message per commit.
   */
  commits: Int32Array;
}

export const COMMITS = 0;
export const SLEEPING = 1;

/**
 * Main thread to worker. `follower`: to the leader (DnsRoleSettings.fold), a channel to a
 * follower to ship its index's changes on; `leader`: to a follower, the other end. Both get
 * the channel's count of batches sent (FoldChannel).
 */
export type DnsThreadCommand =
  | 'stop'
  | { type: 'update-result'; id: number; rcode: number }
  | { type: 'follower'; port: MessagePort; shipped: Int32Array }
  | { type: 'leader'; port: MessagePort; shipped: Int32Array }
  /** The CPUs to run on from now (cpu-locality.ts): all the process may use, once a sibling restarted. */
  | { type: 'cpus'; cpus: number[] };

/** Worker to main thread. */
export type DnsThreadMessage =
  | { type: 'ready'; port: number }
  | { type: 'failed'; error: string }
  | { type: 'tally'; report: QueryTallyReport }
  | { type: 'queries'; batch: AnsweredQuery[] }
  | { type: 'log'; msg: string; extra?: Record<string, unknown> }
  | { type: 'transfer'; activity: TransferActivity }
  | { type: 'update'; id: number; request: UpdateRequest }
  | { type: 'stopped' };
