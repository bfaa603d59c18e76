/**
 * Finished bodies of report-row pages, gzip-compressed, least recently used first out
 * past a byte budget. A page of an ingested report never changes (rows are immutable
 * and only added until the report's `record_count` is reached), so a complete page is
 * built, hashed and compressed once and then served from here. Entries are keyed by the
 * read model's generation (a rebuild starts afresh), the report, the position after
 * which the page starts and its limit; a report's entries are dropped together when a
 * read finds the report gone (retention). Kept compressed: about a sixth of the JSON's
 * size, so a budget of a few MiB holds a thousand pages; a client that does not accept
 * gzip gets the body inflated from here, still cheaper than building it again.
 */
import { Metrics } from '../../shared/metrics';

export interface CachedRowPage {
  /** Weak validator of the page's JSON (the same for both encodings). */
  etag: string;
  gzip: Buffer;
  /** Length of the JSON the gzip body inflates to. */
  jsonBytes: number;
}

/** Fixed cost of an entry besides its body (key, map slots, object), counted against the budget. */
const ENTRY_OVERHEAD_BYTES = 200;

export class RowPageCache {
  private readonly entries = new Map<string, { page: CachedRowPage; reportKey: string }>();
  private readonly keysByReport = new Map<string, Set<string>>();
  private bytes = 0;
  /** Lookups that found their page, and lookups that did not (read by the metrics at scrape time). */
  hits = 0;
  misses = 0;

  constructor(private readonly budgetBytes: number) {}

  get enabled(): boolean {
    return this.budgetBytes > 0;
  }

  /** Bytes held (bodies plus per-entry overhead). */
  get size(): number {
    return this.bytes;
  }

  get(generation: number, reportKey: string, after: number, limit: number): CachedRowPage | undefined {
    const key = pageKey(generation, reportKey, after, limit);
    const hit = this.entries.get(key);
    if (!hit) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last: a Map iterates in insertion order.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.page;
  }

  set(generation: number, reportKey: string, after: number, limit: number, page: CachedRowPage): void {
    const cost = costOf(page);
    if (cost > this.budgetBytes) return;
    const key = pageKey(generation, reportKey, after, limit);
    this.remove(key);
    this.entries.set(key, { page, reportKey });
    let keys = this.keysByReport.get(reportKey);
    if (!keys) this.keysByReport.set(reportKey, (keys = new Set()));
    keys.add(key);
    this.bytes += cost;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(oldest);
    }
  }

  /** Forgets every page of a report (it was deleted, e.g. by retention). */
  dropReport(reportKey: string): void {
    for (const key of [...(this.keysByReport.get(reportKey) ?? [])]) this.remove(key);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= costOf(entry.page);
    const { reportKey } = entry;
    const keys = this.keysByReport.get(reportKey);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByReport.delete(reportKey);
  }
}

// The numbers cannot hold a space, so the key is unambiguous whatever the report key holds.
const pageKey = (generation: number, reportKey: string, after: number, limit: number) => `${generation} ${after} ${limit} ${reportKey}`;

const costOf = (page: CachedRowPage) => page.gzip.length + page.etag.length + ENTRY_OVERHEAD_BYTES;

/**
 * The cache of a process with the configured budget, and its figures on /metrics: lookups
 * by result and bytes held, read when scraped (nothing per request beyond two counts).
 */
export function rowPageCacheWithMetrics(budgetBytes: number, metrics: Metrics): RowPageCache {
  const cache = new RowPageCache(budgetBytes);
  metrics.gauge('email_auth_row_page_cache_bytes', 'Bytes of compressed report-row pages held by the email-auth API page cache', (g) => g.set(cache.size));
  metrics.gauge(
    'email_auth_row_page_cache_lookups',
    'Report-row page cache lookups since the process started, by result (hit, miss)',
    (g) => {
      g.set({ result: 'hit' }, cache.hits);
      g.set({ result: 'miss' }, cache.misses);
    },
    ['result'],
  );
  return cache;
}
