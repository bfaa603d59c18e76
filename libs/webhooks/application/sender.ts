import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { LookupFunction } from 'node:net';
import { ResolvedTarget } from './target';

/** A 2xx within this long is success (contract §19). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is read; the rest is dropped with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * POSTs one delivery to the address the SSRF check approved (the lookup is pinned to it,
 * so the name is not resolved a second time; TLS still checks the certificate against the
 * URL's host). Redirects are not followed: a 3xx is a failed attempt like any other
 * non-2xx. The whole exchange has DELIVERY_TIMEOUT_MS, the answer is read up to
 * MAX_RESPONSE_BYTES. Never throws: every outcome is a result.
 */
export function sendWebhook(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<SendResult> {
  const started = performance.now();
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const ok = error === null && status !== null && status >= 200 && status < 300;
      resolve({
        ok,
        status,
        durationMs: Math.round(performance.now() - started),
        error: ok ? null : (error ?? `HTTP ${status}`),
      });
    };
    const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'account-dns-webhooks/1',
        },
        agent: false,
      },
      (res: IncomingMessage) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) {
            // Enough to know the status: the rest of an oversized answer is not waited for.
            finish(res.statusCode ?? null, null);
            res.destroy();
          }
        });
        res.on('end', () => finish(res.statusCode ?? null, null));
        res.on('error', () => finish(res.statusCode ?? null, null));
      },
    );
    const timer = setTimeout(() => {
      finish(null, `no answer within ${timeoutMs / 1000} s`);
      req.destroy();
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => finish(null, e.code ? `${e.code}: ${e.message}` : e.message));
    req.end(body);
  });
}
