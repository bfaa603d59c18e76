import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { validationFailed } from '../../shared/errors';
import { targetProblem } from '../../shared/target-ranges';

/** The longest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2048;

/** Where a delivery connects: the URL, and the one address the SSRF check approved (the connection is pinned to it). */
export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * An endpoint URL as the contract takes it (§19): absolute, https (http only where the
 * operator allows private targets: a test receiver on loopback), no credentials in it.
 * Throws 400 naming the problem.
 */
export function parseEndpointUrl(raw: string, allowPrivate: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw validationFailed(`url: at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationFailed('url: not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivate))
    throw validationFailed('url: must be https');
  if (url.username || url.password) throw validationFailed('url: must not carry credentials');
  if (!url.hostname) throw validationFailed('url: has no host');
  return url;
}

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '');

/**
 * Resolves the URL's host and checks every address it resolves to against the §16 ranges
 * (unless private targets are allowed): an address list mixing a public and a private one
 * is refused, since the connection could go to either. Answers the address to pin the
 * connection to, so a second lookup (DNS rebinding) cannot send it elsewhere. Throws 400.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<ResolvedTarget> {
  const host = bare(url.hostname);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw validationFailed(`url: ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw validationFailed(`url: ${host} does not resolve`);
  for (const a of addresses) {
    const problem = targetProblem(a.address, allowPrivate);
    if (problem) throw validationFailed(`url: ${host} resolves to ${problem}, which is not allowed`);
  }
  return { url, address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}
