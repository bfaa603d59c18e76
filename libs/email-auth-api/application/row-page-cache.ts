/**
 * Finished bodies of report-row pages, gzip-compressed, least recently used first out
 * past a byte budget. A page of an ingested report never changes (rows are immutable
 * and only added until the report's `record_count` is reached), so a complete page is
 * built, hashed and compressed once and then served from here. Entries are keyed by the
 * read model's generation (a rebuild starts afresh), the report, the position after
 * which the page starts and its limit; a report's entries are dropped together when a
 * read finds the report gone (retention). Kept compressed: about a sixth of the JSON's
 * size, so a budget of a few MiB holds a thousand pages.
 *
 * A client that does not accept gzip needs the JSON itself: inflating it from here costs
 * about as much again as the rest of serving a cached page, so the JSON of the pages such
 * clients read most is kept too, in a second set that may take up to half of the budget
 * (IDENTITY_SHARE) and counts against the whole of it: the budget holds both forms, and
 * compressed pages are only pushed out once identity bodies are using their half. A page
 * leaving the cache takes its JSON with it.
 *
 * Once that share is full, a page's JSON only comes in when the page has had more identity
 * reads than the least recently used JSON it would push out (counts halved every
 * AGING_READS reads, so past popularity fades). Plain LRU measured worse than keeping
 * nothing when identity clients cycle through more pages than fit: every answer inflated
 * and kept a 40 KiB buffer that was dropped before its next read, and that churn cost more
 * in garbage collection than the inflating (0.16 against 0.09 ms of CPU per page).
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
/** The largest share of the budget the JSON bodies kept for identity clients may take. */
const IDENTITY_SHARE = 0.5;
/** Identity reads after which every page's count of them is halved. */
const AGING_READS = 10_000;

export class RowPageCache {
  private readonly entries = new Map<string, { page: CachedRowPage; reportKey: string }>();
  private readonly keysByReport = new Map<string, Set<string>>();
  /** The pages held now, each with its identity reads (aged): an identity body is only kept for a held page. */
  private readonly identityReads = new Map<CachedRowPage, number>();
  private readsSinceAging = 0;
  /** JSON bodies of held pages, keyed by the held page, least recently used first. */
  private readonly identityBodies = new Map<CachedRowPage, Buffer>();
  private readonly identityBudgetBytes: number;
  private bytes = 0;
  private identityBytes = 0;
  /** Lookups that found their page, and lookups that did not (read by the metrics at scrape time). */
  hits = 0;
  misses = 0;
  /** Identity reads of held pages that found their JSON kept, and those that had to inflate it. */
  identityHits = 0;
  identityMisses = 0;

  constructor(private readonly budgetBytes: number) {
    this.identityBudgetBytes = Math.floor(budgetBytes * IDENTITY_SHARE);
  }

  get enabled(): boolean {
    return this.budgetBytes > 0;
  }

  /** Bytes held (bodies in both forms plus per-entry overhead). */
  get size(): number {
    return this.bytes;
  }

  /** Bytes of JSON bodies held for identity clients (part of `size`). */
  get identitySize(): number {
    return this.identityBytes;
  }

  /** The JSON of a held page if kept (it becomes the most recently used), else undefined. */
  identityBody(page: CachedRowPage): Buffer | undefined {
    this.countIdentityRead(page);
    const json = this.identityBodies.get(page);
    if (!json) {
      this.identityMisses++;
      return undefined;
    }
    this.identityHits++;
    touch(this.identityBodies, page, json);
    return json;
  }

  /**
   * Keeps the JSON of `page` for the next identity reader if there is room in its share, or
   * if the page has had more identity reads than the least recently used JSON kept, which
   * then goes (as many as needed); then pushes out compressed pages past the budget.
   * Ignored for a page no longer held (its JSON would outlive it).
   */
  keepIdentityBody(page: CachedRowPage, json: Buffer): void {
    const reads = this.identityReads.get(page);
    if (reads === undefined || this.identityBodies.has(page) || json.length > this.identityBudgetBytes) return;
    if (this.identityBytes + json.length > this.identityBudgetBytes) {
      const [victim] = this.identityBodies.keys();
      if (reads <= (this.identityReads.get(victim) ?? 0)) return;
    }
    this.identityBodies.set(page, json);
    this.identityBytes += json.length;
    this.bytes += json.length;
    for (const [oldest, body] of this.identityBodies) {
      if (this.identityBytes <= this.identityBudgetBytes) break;
      this.dropIdentityBody(oldest, body);
    }
    this.evictPastBudget();
  }

  get(generation: number, reportKey: string, after: number, limit: number): CachedRowPage | undefined {
    const key = pageKey(generation, reportKey, after, limit);
    const hit = this.entries.get(key);
    if (!hit) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    touch(this.entries, key, hit);
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
    this.identityReads.set(page, 0);
    this.bytes += cost;
    this.evictPastBudget();
  }

  private countIdentityRead(page: CachedRowPage): void {
    const reads = this.identityReads.get(page);
    if (reads === undefined) return;
    this.identityReads.set(page, reads + 1);
    if (++this.readsSinceAging < AGING_READS) return;
    this.readsSinceAging = 0;
    for (const [held, n] of this.identityReads) this.identityReads.set(held, n >> 1);
  }

  private evictPastBudget(): void {
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.budgetBytes) break;
      this.remove(oldest);
    }
  }

  private dropIdentityBody(page: CachedRowPage, json: Buffer): void {
    this.identityBodies.delete(page);
    this.identityBytes -= json.length;
    this.bytes -= json.length;
  }

  /** Forgets every page of a report (it was deleted, e.g. by retention). */
  dropReport(reportKey: string): void {
    for (const key of [...(this.keysByReport.get(reportKey) ?? [])]) this.remove(key);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.identityReads.delete(entry.page);
    this.bytes -= costOf(entry.page);
    const json = this.identityBodies.get(entry.page);
    if (json) this.dropIdentityBody(entry.page, json);
    const { reportKey } = entry;
    const keys = this.keysByReport.get(reportKey);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByReport.delete(reportKey);
  }
}

// The numbers cannot hold a space, so the key is unambiguous whatever the report key holds.
const pageKey = (generation: number, reportKey: string, after: number, limit: number) =>
  `${generation} ${after} ${limit} ${reportKey}`;

const costOf = (page: CachedRowPage) => page.gzip.length + page.etag.length + ENTRY_OVERHEAD_BYTES;

/**
 * The cache of a process with the configured budget, and its figures on /metrics: lookups
 * by result and bytes held, read when scraped (nothing per request beyond two counts).
 */
export function rowPageCacheWithMetrics(budgetBytes: number, metrics: Metrics): RowPageCache {
  const cache = new RowPageCache(budgetBytes);
  metrics.gauge(
    'email_auth_row_page_cache_bytes',
    'Bytes of compressed report-row pages held by the email-auth API page cache',
    (g) => g.set(cache.size),
  );
  metrics.gauge(
    'email_auth_row_page_cache_lookups',
    'Report-row page cache lookups since the process started, by result (hit, miss)',
    (g) => {
      g.set({ result: 'hit' }, cache.hits);
      g.set({ result: 'miss' }, cache.misses);
    },
    ['result'],
  );
  metrics.gauge(
    'email_auth_row_page_identity_bytes',
    'Bytes of uncompressed report-row page JSON kept for clients that do not accept gzip (part of the cache bytes)',
    (g) => g.set(cache.identitySize),
  );
  metrics.gauge(
    'email_auth_row_page_identity_lookups',
    'Identity (uncompressed) reads of cached report-row pages since the process started, by whether the JSON was kept (hit) or inflated (miss)',
    (g) => {
      g.set({ result: 'hit' }, cache.identityHits);
      g.set({ result: 'miss' }, cache.identityMisses);
    },
    ['result'],
  );
  return cache;
}

/** Makes `key` the most recently used entry: a Map iterates in insertion order, oldest first. */
function touch<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
}
