/**
 * The embedded read store's bounded cache of parsed documents, least recently used out
 * first. It is bounded by the size of the documents' JSON (known exactly: every document
 * is read or written as JSON), so resident memory does not follow the number of
 * documents stored. Cached documents are never changed in place (an update stores a new
 * object), so entries can be handed out and copied by callers.
 */
export class DocumentCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Re-inserted to become the most recently used (a Map iterates in insertion order).
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, bytes: number): void {
    if (bytes > this.maxBytes) return this.delete(key);
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.bytes;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    if (this.bytes > this.maxBytes) this.evict();
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.bytes -= old.bytes;
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) return;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }
}
