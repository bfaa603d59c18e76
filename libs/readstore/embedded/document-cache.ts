interface Entry<V> {
  value: V;
  bytes: number;
}

/** One generation: entries by space (a collection's table id), then by key. */
type Generation<V> = Map<number, Map<string, Entry<V>>>;

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
 * Entries are keyed by a space (the collection's table id) and the document's key, in a
 * map per space: one key string built per lookup (`${id}\0${key}`) had to be allocated,
 * flattened and hashed on every one, ~15 per DDNS update, about twice the time of the two
 * lookups in maps keyed by the parts (decision 0110).
 *
 * Cached documents are never changed in place (an update stores a new object), so the
 * same object may sit in both generations.
 */
export class DocumentCache<V> {
  private young: Generation<V> = new Map();
  private old: Generation<V> = new Map();
  private youngBytes = 0;
  private oldBytes = 0;
  private youngEntries = 0;
  private oldEntries = 0;

  constructor(readonly maxBytes: number) {}

  get(space: number, key: string): V | undefined {
    const entry = this.young.get(space)?.get(key);
    if (entry !== undefined) return entry.value;
    const aged = this.old.get(space)?.get(key);
    if (aged === undefined) return undefined;
    this.add(space, key, aged);
    return aged.value;
  }

  set(space: number, key: string, value: V, bytes: number): void {
    this.dropOld(space, key);
    this.dropYoung(space, key);
    if (bytes * 2 > this.maxBytes) return;
    this.add(space, key, { value, bytes });
  }

  delete(space: number, key: string): void {
    this.dropYoung(space, key);
    this.dropOld(space, key);
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
    this.youngBytes = this.oldBytes = 0;
    this.youngEntries = this.oldEntries = 0;
  }

  /** Entries and bytes held, counting an entry present in both generations twice (an upper bound). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.youngEntries + this.oldEntries, bytes: this.youngBytes + this.oldBytes };
  }

  private dropYoung(space: number, key: string): void {
    const entries = this.young.get(space);
    const current = entries?.get(key);
    if (current !== undefined) {
      entries!.delete(key);
      this.youngBytes -= current.bytes;
      this.youngEntries -= 1;
    }
  }

  private dropOld(space: number, key: string): void {
    const entries = this.old.get(space);
    const current = entries?.get(key);
    if (current !== undefined) {
      entries!.delete(key);
      this.oldBytes -= current.bytes;
      this.oldEntries -= 1;
    }
  }

  private add(space: number, key: string, entry: Entry<V>): void {
    if (this.youngBytes + entry.bytes > this.maxBytes / 2) {
      this.old = this.young;
      this.oldBytes = this.youngBytes;
      this.oldEntries = this.youngEntries;
      this.young = new Map();
      this.youngBytes = 0;
      this.youngEntries = 0;
    }
    let entries = this.young.get(space);
    if (entries === undefined) this.young.set(space, (entries = new Map()));
    // Never already young: `get` adds after a miss there, `set` after dropping it.
    entries.set(key, entry);
    this.youngBytes += entry.bytes;
    this.youngEntries += 1;
  }
}
