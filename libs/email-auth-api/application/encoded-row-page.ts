import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { weakEtag } from '../domain/content-negotiation';
import { CachedRowPage, RowPageCache } from './row-page-cache';

/** A report-row page ready to send: its validator and its JSON body in either encoding. */
export interface EncodedRowPage {
  etag: string;
  json(): Buffer;
  gzip(): Buffer;
}

/** A page just built: hashed now (its ETag goes with every answer), compressed only when asked. */
export function freshRowPage(json: Buffer): EncodedRowPage {
  let gzip: Buffer | undefined;
  return {
    etag: weakEtag(createHash('sha1').update(json).digest('base64url')),
    json: () => json,
    gzip: () => (gzip ??= gzipSync(json)),
  };
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
    json: () => cache.identityBody(page) ?? keptJson(cache, page, gunzipSync(page.gzip, { chunkSize: Math.max(64, page.jsonBytes + 64) })),
    gzip: () => page.gzip,
  };
}

/**
 * A page just built and now held by the cache: sent as built (its JSON is kept for the
 * next identity reader once one asks for it), or compressed as the cache holds it.
 */
export function heldFreshRowPage(fresh: EncodedRowPage, held: CachedRowPage, cache: RowPageCache): EncodedRowPage {
  return { etag: fresh.etag, json: () => keptJson(cache, held, fresh.json()), gzip: () => held.gzip };
}

function keptJson(cache: RowPageCache, page: CachedRowPage, json: Buffer): Buffer {
  cache.keepIdentityBody(page, json);
  return json;
}
