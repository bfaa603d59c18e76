import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { weakEtag } from '../domain/content-negotiation';
import { CachedRowPage } from './row-page-cache';

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
 * A page from the cache: sent as stored, or inflated for a client that does not take gzip,
 * into one buffer of the known size (zlib's default 16 KiB chunks, concatenated after,
 * cost about twice the CPU).
 */
export function cachedRowPage(page: CachedRowPage): EncodedRowPage {
  return { etag: page.etag, json: () => gunzipSync(page.gzip, { chunkSize: Math.max(64, page.jsonBytes + 64) }), gzip: () => page.gzip };
}
