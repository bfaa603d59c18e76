import * as zlib from 'node:zlib';
import { weakEtag } from '../domain/content-negotiation';
import { CachedRowPage, RowPageCache } from './row-page-cache';

/** A report-row page ready to send: its validator and its JSON body in either encoding. */
export interface EncodedRowPage {
  readonly etag: string;
  json(): Buffer;
  gzip(): Buffer;
}

/**
 * Compression level of a page's gzip form. Level 3 (zlib's fast strategy) measured about
 * 40% of the default level 6's CPU on a 40 KiB page for output about 20% larger
 * (docs/decisions/0048-row-page-cache-and-route.md): a page is compressed on its first
 * read, on the request's own time.
 */
export const ROW_PAGE_GZIP_LEVEL = 3;

/**
 * The page's weak validator: the CRC-32 and length of its JSON. Pages of one URL only
 * differ when the IP data of a new release (country, network) or a rebuilt read model
 * changes them, so a checksum suffices to tell versions apart (a SHA-1 cost ~25 µs per
 * 40 KiB page, an eighth of building it); and a gzip body's trailer carries exactly this
 * CRC and length, so a compressed page has its tag for free.
 */
export const rowPageEtag = (crc: number, length: number): string =>
  weakEtag(`${crc.toString(16).padStart(8, '0')}-${length.toString(16)}`);

/** CRC-32 of `data` (zlib.crc32 from Node 20.15; before, the trailer of a stored, uncompressed gzip member). */
const crc32 = (data: Buffer): number =>
  typeof zlib.crc32 === 'function' ? zlib.crc32(data) : zlib.gzipSync(data, { level: 0 }).readUInt32LE(-8);

/** The validator a gzip member states for its content: CRC-32 and length (mod 2^32) from its trailer. */
const etagOfGzip = (gzip: Buffer): string =>
  rowPageEtag(gzip.readUInt32LE(gzip.length - 8), gzip.readUInt32LE(gzip.length - 4));

/** A page just built: compressed only when asked, its validator from the gzip trailer if compressed, else from the JSON. */
export const freshRowPage = (json: Buffer): EncodedRowPage => new FreshRowPage(json);

/**
 * A class rather than an object literal with a getter: a literal's getter closure is new
 * for every page, which gave every page object a hidden class of its own — measured at
 * 400 ns per page instead of 30, and old-generation garbage that doubled a first read's
 * garbage-collection time in the service.
 */
class FreshRowPage implements EncodedRowPage {
  private compressed: Buffer | undefined = undefined;
  private tag: string | undefined = undefined;

  constructor(private readonly body: Buffer) {}

  get etag(): string {
    return (this.tag ??= this.compressed
      ? etagOfGzip(this.compressed)
      : rowPageEtag(crc32(this.body), this.body.length));
  }

  json(): Buffer {
    return this.body;
  }

  gzip(): Buffer {
    return (this.compressed ??= zlib.gzipSync(this.body, { level: ROW_PAGE_GZIP_LEVEL }));
  }
}

/**
 * A page from the cache: sent as stored, or as its JSON for a client that does not take
 * gzip: the JSON the cache kept for such clients, else inflated (into one buffer of the
 * known size: zlib's default 16 KiB chunks, concatenated after, cost about twice the CPU)
 * and kept for the next one.
 */
export function cachedRowPage(page: CachedRowPage, cache: RowPageCache): EncodedRowPage {
  return {
    etag: page.etag,
    json: () =>
      cache.identityBody(page) ??
      keptJson(cache, page, zlib.gunzipSync(page.gzip, { chunkSize: Math.max(64, page.jsonBytes + 64) })),
    gzip: () => page.gzip,
  };
}

/**
 * A page just built and now held by the cache: sent as built (its JSON is kept for the
 * next identity reader once one asks for it), or compressed as the cache holds it.
 */
export function heldFreshRowPage(fresh: EncodedRowPage, held: CachedRowPage, cache: RowPageCache): EncodedRowPage {
  return { etag: held.etag, json: () => keptJson(cache, held, fresh.json()), gzip: () => held.gzip };
}

function keptJson(cache: RowPageCache, page: CachedRowPage, json: Buffer): Buffer {
  cache.keepIdentityBody(page, json);
  return json;
}
