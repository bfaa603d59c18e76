import { gunzipSync } from 'node:zlib';
import { cachedRowPage, freshRowPage, heldFreshRowPage } from './encoded-row-page';
import { RowPageCache } from './row-page-cache';

const json = Buffer.from(
  JSON.stringify({
    id: 'r',
    rows: { data: Array.from({ length: 100 }, (_, i) => ({ index: i, source_ip: `192.0.2.${i}`, note: 'é ✓' })) },
  }),
);

describe('encoded row pages', () => {
  it('tags a page the same whether its tag comes from the JSON or from the gzip trailer', () => {
    const plain = freshRowPage(json);
    const tagFromJson = plain.etag;
    const zipped = freshRowPage(json);
    zipped.gzip();
    expect(zipped.etag).toBe(tagFromJson);
    expect(tagFromJson).toMatch(/^W\/"[0-9a-f]{8}-[0-9a-f]+"$/);
    expect(tagFromJson.endsWith(`-${json.length.toString(16)}"`)).toBe(true);
  });

  it('tells pages apart that differ in one byte', () => {
    const other = Buffer.from(json);
    other[other.length - 3] ^= 1;
    expect(freshRowPage(other).etag).not.toBe(freshRowPage(json).etag);
  });

  it('sends equal JSON in both encodings, fresh, held and cached, with one tag', () => {
    const cache = new RowPageCache(1_000_000);
    const fresh = freshRowPage(json);
    const stored = { gzip: fresh.gzip(), etag: fresh.etag, jsonBytes: json.length };
    cache.set(1, 'r', -1, 100, stored);
    const held = heldFreshRowPage(fresh, stored, cache);
    const cached = cachedRowPage(stored, cache);
    for (const page of [fresh, held, cached]) {
      expect(page.etag).toBe(fresh.etag);
      expect(page.json().equals(json)).toBe(true);
      expect(gunzipSync(page.gzip()).equals(json)).toBe(true);
    }
  });

  it('keeps the JSON an identity client was sent, for the next one', () => {
    const cache = new RowPageCache(1_000_000);
    const fresh = freshRowPage(json);
    const stored = { gzip: fresh.gzip(), etag: fresh.etag, jsonBytes: json.length };
    cache.set(1, 'r', -1, 100, stored);
    const sent = heldFreshRowPage(fresh, stored, cache).json();
    expect(cache.identitySize).toBe(json.length);
    expect(cachedRowPage(stored, cache).json()).toBe(sent);
    expect(cache.identityHits).toBe(1);
  });

  it('inflates a cached page whose JSON is not kept, and keeps it', () => {
    const cache = new RowPageCache(1_000_000);
    const fresh = freshRowPage(json);
    const stored = { gzip: fresh.gzip(), etag: fresh.etag, jsonBytes: json.length };
    cache.set(1, 'r', -1, 100, stored);
    const first = cachedRowPage(stored, cache).json();
    expect(first.equals(json)).toBe(true);
    expect(cachedRowPage(stored, cache).json()).toBe(first);
    expect([cache.identityHits, cache.identityMisses]).toEqual([1, 1]);
  });
});
