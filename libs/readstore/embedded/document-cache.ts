/**
 * The embedded read store's bounded cache of parsed documents. It is bounded by the size
 * of the documents' JSON (known exactly: every document is read or written as JSON), so
 * resident memory does not follow the number of documents stored.
 *
 * Two generations approximate least-recently-used order: entries go into the young map;
 * when it holds half the budget it becomes the old one and the previous old map is
 * dropped whole; a hit in the old map moves the entry to the young one. A true LRU on a
 * Map (delete and re-insert on every hit, evict from the front) costs far more: V8
 * leaves deleted entries in place until a rehash, and eviction walks over them each time
 * (22 µs per insert at 20,000 entries, against well under 1 µs here).
 *
 * Cached documents are never changed in place (an update stores a new object), so the
 * same object may sit in both generations.
 */
export class DocumentCache<V> {
  private young = new Map<string, { value: V; bytes: number }>();
  private old = new Map<string, { value: V; bytes: number }>();
  private youngBytes = 0;
  private oldBytes = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const entry = this.young.get(key);
    if (entry !== undefined) return entry.value;
    const aged = this.old.get(key);
    if (aged === undefined) return undefined;
    this.add(key, aged);
    return aged.value;
  }

  set(key: string, value: V, bytes: number): void {
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.oldBytes -= old.bytes;
    }
    if (bytes * 2 > this.maxBytes) {
      this.dropYoung(key);
      return;
    }
    this.dropYoung(key);
    this.add(key, { value, bytes });
  }

  delete(key: string): void {
    this.dropYoung(key);
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.oldBytes -= old.bytes;
    }
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
    this.youngBytes = this.oldBytes = 0;
  }

  /** Entries and bytes held, counting an entry present in both generations twice (an upper bound). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.young.size + this.old.size, bytes: this.youngBytes + this.oldBytes };
  }

  private dropYoung(key: string): void {
    const current = this.young.get(key);
    if (current !== undefined) {
      this.young.delete(key);
      this.youngBytes -= current.bytes;
    }
  }

  private add(key: string, entry: { value: V; bytes: number }): void {
    if (this.youngBytes + entry.bytes > this.maxBytes / 2) {
      this.old = this.young;
      this.oldBytes = this.youngBytes;
      this.young = new Map();
      this.youngBytes = 0;
    }
    this.young.set(key, entry);
    this.youngBytes += entry.bytes;
  }
}
