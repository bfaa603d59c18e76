import { BufferedQuerySink, type AnsweredQuery, type QuerySink } from '../../dns-server';
import type { Metrics } from '../../shared/metrics';
import type { QueryRow } from '../domain/query-row';
import type { IpInfo } from './ip-intel';
import type { QueryLogStore } from './query-log.store';

export interface QueryLogWriterOptions {
  maxBatch?: number;
  flushIntervalMs?: number;
  /** Queries waiting beyond this are dropped and counted: answers never wait for the log. */
  maxPending?: number;
}

export interface Enricher {
  ready(): Promise<void>;
  lookup(ip: string): IpInfo;
}

/** A dual-stack socket reports IPv4 clients as `::ffff:a.b.c.d`; they are IPv4 clients. */
export const unmapped = (ip: string): string => (ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip);

/**
 * Answered queries of a query's account, enriched. Queries that belong to no account
 * (REFUSED outside the served zones, unreadable packets) have no one to show them to and
 * are only counted in /metrics.
 */
export function toRow(q: AnsweredQuery, info: IpInfo): QueryRow | null {
  if (q.accountId === null || q.domain === null) return null;
  const accountId = Number(q.accountId);
  if (!Number.isSafeInteger(accountId)) return null;
  return {
    ts: q.timestamp,
    accountId,
    domain: q.domain,
    qname: q.name,
    qtype: q.type,
    rcode: q.rcode,
    clientIp: unmapped(q.clientIp),
    country: info.country,
    asn: info.asn,
    asOrg: info.asOrg,
    transport: q.transport,
    dnssecOk: q.dnssecOk,
    edns: q.edns,
    responseMs: Math.round(q.durationMs * 1000) / 1000,
  };
}

/**
 * The query-log pipeline's sink: every answered query is handed to a bounded in-memory
 * queue (the DNS hot path does nothing else), then enriched, attributed and written in
 * batches. Under backpressure the queue drops, and /metrics counts what it dropped.
 */
export class QueryLogWriter implements QuerySink {
  private readonly buffer: BufferedQuerySink;
  private closed = false;

  constructor(
    private readonly store: QueryLogStore,
    private readonly enricher: Enricher,
    metrics: Metrics,
    onError: (err: unknown) => void,
    opts: QueryLogWriterOptions = {},
  ) {
    const written = metrics.counter('dns_query_log_written_total', 'Answered DNS queries written to the query log');
    this.buffer = new BufferedQuerySink(
      async (batch) => {
        await this.enricher.ready();
        const rows: QueryRow[] = [];
        for (const q of batch) {
          const row = toRow(q, this.enricher.lookup(q.clientIp));
          if (row) rows.push(row);
        }
        await this.store.append(rows);
        written.inc(rows.length);
      },
      { maxBatch: opts.maxBatch ?? 2000, flushIntervalMs: opts.flushIntervalMs ?? 250, maxPending: opts.maxPending ?? 200_000, onError },
    );
    metrics.gauge('dns_query_log_dropped_total', 'Answered DNS queries the query log dropped because its queue was full', (g) => g.set(this.buffer.dropped));
  }

  record(q: AnsweredQuery): void {
    if (!this.closed) this.buffer.record(q);
  }

  /** Everything recorded so far is in the store once this resolves. */
  flush(): Promise<void> {
    return this.buffer.flush();
  }

  get dropped(): number {
    return this.buffer.dropped;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.buffer.close();
  }
}
