import { createPublicKey, KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { hostnameProblem } from '../../dns-server';
import { validationFailed } from '../../shared/errors';
import { DmarcPolicy } from './stages';

/**
 * The email-authentication settings of one zone (contract §7) and the rules each field
 * must meet. Every check throws a 400 whose message names the field.
 */
export interface DmarcSettings {
  policy: DmarcPolicy;
  subdomain_policy: DmarcPolicy | null;
  percentage: number;
  rua: string[];
  ruf: string[];
  adkim: 'r' | 's';
  aspf: 'r' | 's';
  fo: string;
}

export type SpfAll = '-all' | '~all' | '?all';
/**
 * The apex SPF record as terms. `a`, `mx`, `exists` and `redirect` came later than the
 * contract's four fields and are kept only when set, so settings stored before them (and
 * their events) read the same; `@` in `a`/`mx` is the zone itself (a bare `a` or `mx`).
 * `all` is null only beside `redirect` (RFC 7208 §6.1: a redirect is ignored after `all`).
 */
export interface SpfSettings {
  include: string[];
  ip4: string[];
  ip6: string[];
  all: SpfAll | null;
  a?: string[];
  mx?: string[];
  exists?: string[];
  redirect?: string;
}

/** What PUT …/spf takes (contract §7 plus the optional later fields). */
export interface SpfInput {
  include?: string[];
  ip4?: string[];
  ip6?: string[];
  all?: string | null;
  a?: string[];
  mx?: string[];
  exists?: string[];
  redirect?: string | null;
}

export interface DkimKey {
  selector: string;
  /** Base64 DER SubjectPublicKeyInfo, as given or generated. */
  public_key: string;
  key_type: 'rsa' | 'ed25519';
  key_bits: number;
  generated: boolean;
  created_at: string;
}

export type MtaStsMode = 'enforce' | 'testing' | 'none';
export interface MtaStsSettings {
  mode: MtaStsMode;
  mx: string[];
  max_age: number;
  /** RFC 8461 §3.1 `id`: changes with every policy change so senders refetch the policy. */
  id: string;
  updated_at: string;
}

export interface TlsRptSettings {
  rua: string[];
}

export interface BimiSettings {
  logo_url: string;
  vmc_url: string | null;
}

const POLICIES: readonly DmarcPolicy[] = ['none', 'quarantine', 'reject'];
const FO = /^[01ds](:[01ds])*$/;
/** RFC 6376 §3.1: a selector is one or more dot-separated LDH labels. */
const SELECTOR = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
export const MAX_URIS = 10;
/** RFC 8461 §3.2: max_age is at most 31557600 seconds (one year). */
export const MTA_STS_MAX_AGE = 31_557_600;
/** RFC 8301 §3.2: verifiers must accept RSA keys of 1024 to 4096 bits; shorter ones are refused. */
export const RSA_MIN_BITS = 1024;
export const RSA_MAX_BITS = 4096;

export function checkPolicy(value: string | null | undefined, field: string): DmarcPolicy {
  if (!POLICIES.includes(value as DmarcPolicy))
    throw validationFailed(`${field}: must be one of none, quarantine, reject`);
  return value as DmarcPolicy;
}

export function checkPercentage(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1 || value > 100)
    throw validationFailed(`${field}: must be an integer from 1 to 100`);
  return value;
}

/**
 * A `mailto:` URI with one plain address (RFC 6068), or, where allowed, an `https:` URL.
 * DMARC reserves `!` and `,` in its URI lists (RFC 7489 §6.4), so they are refused inside a URI.
 */
export function checkReportUri(value: string, field: string, schemes: Array<'mailto' | 'https'>): string {
  const v = value.trim();
  if (v.length === 0 || v.length > 512) throw validationFailed(`${field}: must be a URI of 1 to 512 characters`);
  if (/[,!;\s]/.test(v))
    throw validationFailed(`${field}: "${v}" must not contain commas, exclamation marks, semicolons or spaces`);
  const lower = v.toLowerCase();
  if (lower.startsWith('mailto:') && schemes.includes('mailto')) {
    const address = v.slice('mailto:'.length);
    const at = address.lastIndexOf('@');
    const local = address.slice(0, at);
    const domain = address.slice(at + 1).toLowerCase();
    if (
      at < 1 ||
      !/^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/.test(local) ||
      local.startsWith('.') ||
      local.endsWith('.') ||
      local.includes('..')
    ) {
      throw validationFailed(`${field}: "${v}" is not a mailto: URI with one email address`);
    }
    if (hostnameProblem(domain) || !domain.includes('.'))
      throw validationFailed(`${field}: "${v}" has an invalid mail domain`);
    return `mailto:${local}@${domain}`;
  }
  if (lower.startsWith('https:') && schemes.includes('https')) {
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      throw validationFailed(`${field}: "${v}" is not a valid https: URL`);
    }
    if (url.protocol !== 'https:' || !url.hostname || url.username || url.password)
      throw validationFailed(`${field}: "${v}" is not a valid https: URL`);
    if (hostnameProblem(url.hostname) && !isIP(url.hostname.replace(/^\[|\]$/g, '')))
      throw validationFailed(`${field}: "${v}" has an invalid host`);
    return url.toString();
  }
  throw validationFailed(`${field}: "${v}" must be a ${schemes.map((s) => `${s}:`).join(' or ')} URI`);
}

function uriList(values: string[], field: string, schemes: Array<'mailto' | 'https'>): string[] {
  if (values.length > MAX_URIS) throw validationFailed(`${field}: at most ${MAX_URIS} URIs`);
  const out = values.map((v, i) => checkReportUri(v, `${field}[${i}]`, schemes));
  return [...new Set(out)];
}

export function checkDmarc(input: {
  policy: string;
  subdomain_policy?: string | null;
  percentage?: number;
  rua?: string[];
  ruf?: string[];
  adkim?: string;
  aspf?: string;
  fo?: string;
}): DmarcSettings {
  const alignment = (v: string | undefined, field: string): 'r' | 's' => {
    if (v === undefined) return 'r';
    if (v !== 'r' && v !== 's') throw validationFailed(`${field}: must be r (relaxed) or s (strict)`);
    return v;
  };
  const fo = input.fo ?? '0';
  if (!FO.test(fo)) throw validationFailed('fo: must be 0, 1, d or s, or several joined by colons (e.g. 1:d)');
  return {
    policy: checkPolicy(input.policy, 'policy'),
    subdomain_policy: input.subdomain_policy == null ? null : checkPolicy(input.subdomain_policy, 'subdomain_policy'),
    percentage: checkPercentage(input.percentage ?? 100, 'percentage'),
    rua: uriList(input.rua ?? [], 'rua', ['mailto']),
    ruf: uriList(input.ruf ?? [], 'ruf', ['mailto']),
    adkim: alignment(input.adkim, 'adkim'),
    aspf: alignment(input.aspf, 'aspf'),
    fo,
  };
}

export function checkHostname(value: string, field: string, opts: { wildcard?: boolean } = {}): string {
  const name = value.trim().toLowerCase().replace(/\.$/, '');
  const problem = hostnameProblem(name, opts);
  if (problem) throw validationFailed(`${field}: ${problem}`);
  if (!name.includes('.')) throw validationFailed(`${field}: "${name}" needs at least two labels`);
  return name;
}

function cidr(value: string, field: string, family: 4 | 6): string {
  const [address, prefix, ...rest] = value.trim().split('/');
  const max = family === 4 ? 32 : 128;
  if (
    rest.length ||
    isIP(address) !== family ||
    (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max))
  ) {
    throw validationFailed(`${field}: "${value}" is not an IPv${family} address or network (address/0-${max})`);
  }
  return prefix === undefined ? address.toLowerCase() : `${address.toLowerCase()}/${Number(prefix)}`;
}

export function checkSpf(input: SpfInput): SpfSettings {
  const redirect = input.redirect ? checkHostname(input.redirect, 'redirect') : undefined;
  const all = input.all === undefined ? (redirect ? null : '~all') : input.all;
  if (all === null ? !redirect : !['-all', '~all', '?all'].includes(all))
    throw validationFailed('all: must be -all, ~all or ?all (or null beside redirect)');
  if (all !== null && redirect)
    throw validationFailed(
      'redirect: give either all or redirect; a redirect after all is never followed (RFC 7208 §6.1)',
    );
  const dedupe = <T>(xs: T[]) => [...new Set(xs)];
  const targets = (list: string[] | undefined, field: string) =>
    dedupe((list ?? []).map((d, i) => (d.trim() === '@' ? '@' : checkHostname(d, `${field}[${i}]`))));
  const optional = {
    a: targets(input.a, 'a'),
    mx: targets(input.mx, 'mx'),
    exists: dedupe((input.exists ?? []).map((d, i) => domainSpec(d, `exists[${i}]`))),
  };
  return {
    include: dedupe((input.include ?? []).map((d, i) => checkHostname(d, `include[${i}]`))),
    ip4: dedupe((input.ip4 ?? []).map((a, i) => cidr(a, `ip4[${i}]`, 4))),
    ip6: dedupe((input.ip6 ?? []).map((a, i) => cidr(a, `ip6[${i}]`, 6))),
    all: all as SpfAll | null,
    // Only what is set: settings without the later fields stay exactly as they were stored.
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v.length > 0)),
    ...(redirect ? { redirect } : {}),
  };
}

/** An `exists` target may hold RFC 7208 §7 macros (`%{i}`), so it is checked as visible ASCII, not as a host name. */
function domainSpec(value: string, field: string): string {
  const spec = value.trim();
  if (!/^[\x21-\x7e]{1,253}$/.test(spec) || !spec.includes('.'))
    throw validationFailed(`${field}: "${value}" is not an SPF domain-spec`);
  return spec;
}

export function checkSelector(value: string): string {
  const selector = value.toLowerCase();
  if (selector.length > 63 || !SELECTOR.test(selector)) {
    throw validationFailed(
      'selector: must be DNS labels of letters, digits and hyphens (RFC 6376 §3.1), at most 63 characters',
    );
  }
  return selector;
}

/** Reads a base64 DER SubjectPublicKeyInfo and checks it is a DKIM-usable RSA or Ed25519 key. */
export function checkPublicKey(base64: string): { public_key: string; key_type: 'rsa' | 'ed25519'; key_bits: number } {
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact))
    throw validationFailed('public_key: must be base64 (DER SubjectPublicKeyInfo)');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(compact, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw validationFailed('public_key: not a DER SubjectPublicKeyInfo public key');
  }
  if (key.asymmetricKeyType === 'ed25519') return { public_key: compact, key_type: 'ed25519', key_bits: 256 };
  if (key.asymmetricKeyType !== 'rsa') throw validationFailed('public_key: must be an RSA or Ed25519 key');
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < RSA_MIN_BITS || bits > RSA_MAX_BITS) {
    throw validationFailed(
      `public_key: an RSA key must have ${RSA_MIN_BITS} to ${RSA_MAX_BITS} bits (this one has ${bits})`,
    );
  }
  return { public_key: compact, key_type: 'rsa', key_bits: bits };
}

export function checkMtaSts(input: {
  mode: string;
  mx?: string[];
  max_age?: number;
}): Omit<MtaStsSettings, 'id' | 'updated_at'> {
  if (!['enforce', 'testing', 'none'].includes(input.mode))
    throw validationFailed('mode: must be enforce, testing or none');
  const mode = input.mode as MtaStsMode;
  const mx = [...new Set((input.mx ?? []).map((h, i) => checkHostname(h, `mx[${i}]`, { wildcard: true })))];
  // RFC 8461 §3.2: a wildcard matches exactly one left-most label, so only "*." at the start.
  mx.forEach((h, i) => {
    if (h.indexOf('*') > 0 || (h.startsWith('*') && !h.startsWith('*.')))
      throw validationFailed(`mx[${i}]: a wildcard must be the whole left-most label`);
  });
  if (mode !== 'none' && mx.length === 0)
    throw validationFailed('mx: at least one MX host is needed for mode enforce or testing');
  if (mx.length > 20) throw validationFailed('mx: at most 20 hosts');
  const maxAge = input.max_age ?? 604_800;
  if (!Number.isInteger(maxAge) || maxAge < 0 || maxAge > MTA_STS_MAX_AGE)
    throw validationFailed(`max_age: must be an integer from 0 to ${MTA_STS_MAX_AGE} seconds`);
  return { mode, mx, max_age: maxAge };
}

export function checkTlsRpt(input: { rua: string[] }): TlsRptSettings {
  if (!input.rua || input.rua.length === 0) throw validationFailed('rua: at least one mailto: or https: URI');
  return { rua: uriList(input.rua, 'rua', ['mailto', 'https']) };
}

export function checkBimi(input: { logo_url: string; vmc_url?: string | null }): BimiSettings {
  const logo = checkReportUri(input.logo_url, 'logo_url', ['https']);
  // BIMI logos are SVG Tiny PS documents (draft-brand-indicators-for-message-identification §4.2).
  if (!/\.svg$/i.test(new URL(logo).pathname)) throw validationFailed('logo_url: must point to an SVG file (.svg)');
  const vmc =
    input.vmc_url == null || input.vmc_url === '' ? null : checkReportUri(input.vmc_url, 'vmc_url', ['https']);
  return { logo_url: logo, vmc_url: vmc };
}
