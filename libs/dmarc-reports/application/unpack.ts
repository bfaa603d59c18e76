import { createGunzip, gunzipSync } from 'node:zlib';
import { Unzip, UnzipInflate } from 'fflate';
import { refuse, ReportRefused } from '../domain/report-refusal';

/** Contract §8: a report larger than this once unpacked is refused. */
export const MAX_UNPACKED_BYTES = 10 * 1024 * 1024;

/**
 * Output over the limit from an input this many times smaller is a decompression bomb
 * (real reports compress 10–40×), not merely an oversized report.
 */
const BOMB_RATIO = 100;

export const isGzip = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
export const isZip = (b: Uint8Array): boolean =>
  b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

const oversize = (compressed: number, limit: number, what: string): ReportRefused =>
  limit / Math.max(1, compressed) > BOMB_RATIO
    ? refuse(
        'decompression_bomb',
        `${what} inflates beyond ${limit} bytes from ${compressed} bytes (decompression bomb)`,
      )
    : refuse('too_large', `${what} is larger than ${limit} bytes unpacked`);

/** zlib stops at `maxOutputLength`, so a bomb never gets past the limit in memory. */
export function gunzipLimited(data: Uint8Array, limit = MAX_UNPACKED_BYTES): Buffer {
  try {
    return gunzipOnce(data, limit);
  } catch (e) {
    const lenient = lenientGzip(data);
    if (lenient === data || (e as ReportRefused).reason !== 'malformed') throw e;
    return gunzipOnce(lenient, limit);
  }
}

function gunzipOnce(data: Uint8Array, limit: number): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: limit });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError)
      throw oversize(data.length, limit, 'gzip content');
    throw refuse('malformed', `gzip content is corrupt: ${(e as Error).message}`);
  }
}

const FTEXT = 1;
const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const TRAILING_WHITESPACE = new Set([0x09, 0x0a, 0x0d, 0x20]);

/**
 * What zlib refuses in a gzip file and gzip readers such as Python's (parsedmarc's) do not,
 * made plain: a header CRC that does not match (FHCRC) or reserved flag bits set (the
 * optional fields are skipped by RFC 1952's rules and the header rewritten without them),
 * and whitespace after the last member (a mail gateway's CRLF). The content is still
 * checked by its own CRC-32 and length. `data` itself when there is nothing to change.
 */
export function lenientGzip(data: Uint8Array): Uint8Array {
  let end = data.length;
  while (end > 18 && TRAILING_WHITESPACE.has(data[end - 1])) end--;
  const flags = data[3];
  if (
    !isGzip(data) ||
    data.length < 10 ||
    (end === data.length && (flags & ~(FTEXT | FEXTRA | FNAME | FCOMMENT)) === 0)
  )
    return data;
  let at = 10;
  if (flags & FEXTRA) at += 2 + (data[at] | (data[at + 1] << 8));
  if (flags & FNAME) at = data.indexOf(0, at) + 1;
  if (flags & FCOMMENT) at = data.indexOf(0, at) + 1;
  if (flags & FHCRC) at += 2;
  // A field that runs off the end: nothing to rewrite, zlib will say what is wrong.
  if (at <= 0 || at >= end) return data;
  const plain = Buffer.from(data.subarray(0, 10));
  plain[3] = 0;
  return Buffer.concat([plain, data.subarray(at, end)]);
}

/**
 * The size a gzip member says its content has (its trailer, modulo 2^32): only a hint, for
 * choosing how to inflate, never for the limit (a bomb may lie).
 */
export const gzipDeclaredSize = (data: Uint8Array): number =>
  data.length >= 18 ? Buffer.from(data.buffer, data.byteOffset, data.byteLength).readUInt32LE(data.byteLength - 4) : 0;

/** Pieces in which `gunzipStreaming` hands the content over. */
const STREAM_CHUNK = 64 * 1024;

/**
 * Inflates gzip `data` a piece at a time into `sink`, so the content never exists whole in
 * memory (a 50,000-record report is ~19 MB of XML). The limit is counted as it inflates,
 * as gunzipLimited's: past it the inflating stops with the same refusal. A `sink` that
 * throws stops it too and the promise rejects with its error.
 */
export function gunzipStreaming(
  data: Uint8Array,
  sink: (chunk: Buffer) => void,
  limit = MAX_UNPACKED_BYTES,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip({ chunkSize: STREAM_CHUNK });
    let size = 0;
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      gunzip.destroy();
      reject(e);
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) return fail(oversize(data.length, limit, 'gzip content'));
      try {
        sink(chunk);
      } catch (e) {
        fail(e);
      }
    });
    gunzip.on('error', (e) => fail(refuse('malformed', `gzip content is corrupt: ${e.message}`)));
    gunzip.on('end', () => {
      if (!failed) resolve();
    });
    gunzip.end(data);
  });
}

/**
 * The first entry of a zip archive that `wanted` accepts, inflated as a stream: the
 * declared size is checked before inflating and the real output is counted as it comes,
 * so an entry that lies about its size is stopped at the limit too.
 */
export function unzipFirst(
  data: Uint8Array,
  wanted: (name: string) => boolean,
  limit = MAX_UNPACKED_BYTES,
): { name: string; content: Buffer } {
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  let picked: { name: string; chunks: Uint8Array[]; size: number; done: boolean } | null = null;
  let failure: ReportRefused | null = null;
  unzip.onfile = (file) => {
    if (picked || failure || file.name.endsWith('/') || !wanted(file.name)) return;
    if (file.originalSize !== undefined && file.originalSize > limit) {
      failure = oversize(file.size ?? data.length, limit, `zip entry ${file.name}`);
      return;
    }
    const entry = { name: file.name, chunks: [] as Uint8Array[], size: 0, done: false };
    picked = entry;
    file.ondata = (err, chunk, final) => {
      if (failure) return;
      if (err) {
        failure = refuse('malformed', `zip entry ${file.name} is corrupt: ${err.message}`);
        return;
      }
      entry.size += chunk.length;
      if (entry.size > limit) {
        failure = oversize(data.length, limit, `zip entry ${file.name}`);
        file.terminate();
        return;
      }
      entry.chunks.push(chunk);
      if (final) entry.done = true;
    };
    file.start();
  };
  try {
    unzip.push(data, true);
  } catch (e) {
    if (!failure) throw refuse('malformed', `zip archive is corrupt: ${(e as Error).message}`);
  }
  if (failure) throw failure;
  const entry = picked as { name: string; chunks: Uint8Array[]; size: number; done: boolean } | null;
  if (!entry) throw refuse('unsupported', 'zip archive holds no report file');
  if (!entry.done) throw refuse('malformed', `zip entry ${entry.name} is truncated`);
  return { name: entry.name, content: Buffer.concat(entry.chunks) };
}
