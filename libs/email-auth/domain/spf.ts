import { validationFailed } from '../../shared/errors';
import { SpfAll, SpfSettings } from './settings';

/** RFC 7208 §4.6.4: evaluating a record may cause at most 10 DNS-querying terms. */
export const SPF_LOOKUP_LIMIT = 10;

export interface SpfTerm {
  qualifier: string;
  name: string;
  value: string | null;
}

const MECHANISMS = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);
const LOOKUP_TERMS = new Set(['include', 'a', 'mx', 'ptr', 'exists', 'redirect']);

/** Splits an SPF record (RFC 7208 §4.6.1) into terms; throws on what is not SPF syntax. */
export function parseSpf(record: string): SpfTerm[] {
  const parts = record.trim().split(/ +/);
  if (parts[0]?.toLowerCase() !== 'v=spf1') throw new Error('does not start with v=spf1');
  return parts.slice(1).map((raw) => {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(raw);
    if (modifier) return { qualifier: '', name: modifier[1].toLowerCase(), value: modifier[2] };
    const m = /^([+?~-]?)([a-z0-9]+)(?:[:/](.*))?$/i.exec(raw);
    if (!m || !MECHANISMS.has(m[2].toLowerCase())) throw new Error(`"${raw}" is not an SPF mechanism or modifier`);
    const name = m[2].toLowerCase();
    if ((name === 'include' || name === 'exists') && !m[3]) throw new Error(`"${raw}" needs a domain`);
    return { qualifier: m[1] || '+', name, value: m[3] ?? null };
  });
}

const target = (name: string, list: string[] | undefined) =>
  (list ?? []).map((d) => (d === '@' ? name : `${name}:${d}`));

/**
 * The record the service publishes for the settings: the zone's own hosts (`a`, `mx`),
 * networks, includes, `exists`, then `all` or `redirect`. Order inside a kind is kept.
 */
export function spfRecord(s: SpfSettings): string {
  return [
    'v=spf1',
    ...target('a', s.a),
    ...target('mx', s.mx),
    ...s.ip4.map((a) => `ip4:${a}`),
    ...s.ip6.map((a) => `ip6:${a}`),
    ...s.include.map((d) => `include:${d}`),
    ...(s.exists ?? []).map((d) => `exists:${d}`),
    ...(s.all ? [s.all] : []),
    ...(s.redirect ? [`redirect=${s.redirect}`] : []),
  ].join(' ');
}

/** A published SPF record read into the settings fields, and the terms they cannot hold. */
export interface PublishedSpf {
  record: string;
  settings: Required<Omit<SpfSettings, 'redirect'>> & { redirect: string | null };
  /** Terms the settings cannot express (`ptr`, `exp=`, a qualifier on a mechanism other than `all`, a CIDR on `a`/`mx`): saving drops them. */
  unsupported: string[];
}

/** Reads a published record (an imported zone's, say) so a form can start from it instead of from nothing. */
export function publishedSpf(record: string, zone: string): PublishedSpf | null {
  let terms: SpfTerm[];
  try {
    terms = parseSpf(record);
  } catch {
    return null;
  }
  const settings: PublishedSpf['settings'] = {
    include: [],
    ip4: [],
    ip6: [],
    all: null,
    a: [],
    mx: [],
    exists: [],
    redirect: null,
  };
  const unsupported: string[] = [];
  const raw = record.trim().split(/ +/).slice(1);
  terms.forEach((t, i) => {
    const v = t.value?.toLowerCase().replace(/\.$/, '') ?? null;
    if (t.name === 'all' && t.qualifier !== '+') settings.all = `${t.qualifier}all` as SpfAll;
    else if (t.name === 'redirect' && v) settings.redirect = v;
    else if (t.qualifier === '+' && (t.name === 'a' || t.name === 'mx') && !(v ?? '').includes('/'))
      settings[t.name].push(v === null || v === zone ? '@' : v);
    else if (t.qualifier === '+' && (t.name === 'ip4' || t.name === 'ip6' || t.name === 'include') && v)
      settings[t.name].push(v);
    else if (t.qualifier === '+' && t.name === 'exists' && t.value) settings.exists.push(t.value);
    else unsupported.push(raw[i]);
  });
  // Neither `all` nor `redirect`: RFC 7208 §4.7 gives neutral, the closest being ?all.
  if (settings.all === null && settings.redirect === null) settings.all = '?all';
  if (settings.all !== null && settings.redirect !== null) {
    unsupported.push(`redirect=${settings.redirect}`);
    settings.redirect = null;
  }
  return { record, settings, unsupported };
}

/** The SPF record published at a name, when it is in a zone the service serves; null when unseen. */
export type SpfSource = (domain: string) => Promise<string | null>;

/**
 * DNS lookups the record costs a receiver, counted through the included records the
 * service can see (its own zones); an include it cannot see counts as its own one
 * lookup. Refuses loops, malformed included records and more than the limit.
 */
export async function countSpfLookups(root: SpfTerm[], source: SpfSource): Promise<number> {
  const walk = async (terms: SpfTerm[], path: string[]): Promise<number> => {
    let total = 0;
    for (const term of terms) {
      if (!LOOKUP_TERMS.has(term.name)) continue;
      total += 1;
      if ((term.name === 'include' || term.name === 'redirect') && term.value && !term.value.includes('%')) {
        const target = term.value.toLowerCase().replace(/\.$/, '');
        if (path.includes(target))
          throw validationFailed(`include: SPF loop through ${[...path, target].join(' -> ')}`);
        const text = await source(target);
        if (text === null) continue;
        let inner: SpfTerm[];
        try {
          inner = parseSpf(text);
        } catch (e) {
          throw validationFailed(`include: the SPF record of ${target} is invalid: ${(e as Error).message}`);
        }
        total += await walk(inner, [...path, target]);
      }
      if (total > SPF_LOOKUP_LIMIT * 4) break; // far over the limit already; stop reading
    }
    return total;
  };
  return walk(root, []);
}

/** RFC 7208 §3.4: the answer should fit a 512-byte UDP response; the name and headers take the rest. */
export const SPF_MAX_LENGTH = 450;

export function checkSpfLength(record: string): void {
  if (record.length > SPF_MAX_LENGTH) {
    throw validationFailed(
      `spf: the record would be ${record.length} characters; at most ${SPF_MAX_LENGTH} keep the DNS answer ` +
        `within 512 bytes (RFC 7208 §3.4): move networks behind an include`,
    );
  }
}

export function checkSpfLookups(count: number): void {
  if (count > SPF_LOOKUP_LIMIT) {
    throw validationFailed(
      `include: the SPF record needs ${count} DNS lookups; at most ${SPF_LOOKUP_LIMIT} are allowed (RFC 7208 §4.6.4)`,
    );
  }
}
