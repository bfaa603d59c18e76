import type { PackedRecordList } from './packed-records';
import { refuse } from './report-refusal';

/**
 * A DMARC aggregate report (RFC 7489 appendix C, RFC 9990) as the service keeps it:
 * values trimmed and result keywords lower-cased (reporters send `Pass`, `None`), times
 * as ISO strings, empty optional fields left out.
 */
export interface DkimResult {
  domain: string;
  selector?: string;
  result: string;
}

export interface SpfResult {
  domain: string;
  scope?: string;
  result: string;
}

export interface AggregateRecord {
  source_ip: string;
  count: number;
  disposition: string;
  /** policy_evaluated results: DMARC-aligned DKIM and SPF. */
  dkim: string;
  spf: string;
  reasons?: { type: string; comment?: string }[];
  header_from: string;
  envelope_from?: string;
  envelope_to?: string;
  dkim_results: DkimResult[];
  spf_results: SpfResult[];
}

export interface PublishedPolicy {
  domain: string;
  p: string;
  sp?: string;
  np?: string;
  adkim?: string;
  aspf?: string;
  pct?: number;
  fo?: string;
  testing?: string;
  discovery_method?: string;
}

export interface AggregateReport {
  kind: 'aggregate';
  org_name: string;
  email: string;
  report_id: string;
  begin: string;
  end: string;
  generator?: string;
  policy: PublishedPolicy;
  /** Packed as they were read (see packed-records.ts); `toArray()` gives them as objects. */
  records: PackedRecordList;
}

type Node = Record<string, unknown> | string | undefined;

/**
 * Text of an element as the XML reader gives it (a string, or an object with `#text` for
 * mixed content); entities and character references are already decoded by the parser.
 */
const text = (node: unknown): string => {
  if (node === undefined || node === null) return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node).trim();
  if (typeof node === 'object' && '#text' in (node as object)) return text((node as Record<string, unknown>)['#text']);
  return '';
};

const child = (node: Node, name: string): Node => (node && typeof node === 'object' ? (node[name] as Node) : undefined);
const list = (node: unknown): Node[] =>
  (node === undefined || node === '' ? [] : Array.isArray(node) ? node : [node]) as Node[];
const optional = (value: string): string | undefined => (value === '' ? undefined : value);

/**
 * One string per distinct value: a report's records repeat a handful of keywords and
 * domains thousands of times, and each would otherwise be its own copy in memory (a
 * 50,000-record report held ~45 MB of records instead of ~25 MB).
 */
const INTERNED_MAX = 4096;
const interned = new Map<string, string>();
const intern = (value: string): string => {
  const known = interned.get(value);
  if (known !== undefined) return known;
  if (interned.size >= INTERNED_MAX) interned.clear();
  interned.set(value, value);
  return value;
};

const keyword = (node: unknown): string => intern(text(node).toLowerCase());
const domainText = (node: unknown): string => intern(normalizeDomain(text(node)));

const epoch = (node: unknown, field: string): string => {
  const raw = text(node);
  if (!/^\d{1,12}$/.test(raw)) throw refuse('malformed', `date_range ${field} must be epoch seconds`);
  return new Date(Number(raw) * 1000).toISOString();
};

const domainOf = (address: string): string => {
  const at = address.lastIndexOf('@');
  return (at >= 0 ? address.slice(at + 1) : address).replace(/[<>\s]/g, '').toLowerCase();
};

export const normalizeDomain = (domain: string): string => domain.trim().toLowerCase().replace(/\.$/, '');

/** One `<record>` element (its index for error messages): mapped as soon as the reader has it. */
export function aggregateRecordFrom(node: unknown, index: number): AggregateRecord {
  const element = node as Node;
  const row = child(element, 'row');
  const evaluated = child(row, 'policy_evaluated');
  const identifiers = child(element, 'identifiers');
  const auth = child(element, 'auth_results');
  const sourceIp = text(child(row, 'source_ip'));
  const count = text(child(row, 'count'));
  if (!sourceIp) throw refuse('malformed', `record ${index + 1} has no source_ip`);
  if (!/^\d{1,12}$/.test(count)) throw refuse('malformed', `record ${index + 1} has no valid count`);
  const reasons = list(child(evaluated, 'reason'))
    .map((r) => ({ type: keyword(child(r, 'type')), comment: optional(text(child(r, 'comment'))) }))
    .filter((r) => r.type !== '' || r.comment !== undefined);
  const out: AggregateRecord = {
    source_ip: sourceIp,
    count: Number(count),
    disposition: keyword(child(evaluated, 'disposition')),
    dkim: keyword(child(evaluated, 'dkim')),
    spf: keyword(child(evaluated, 'spf')),
    header_from: domainText(child(identifiers, 'header_from')),
    dkim_results: list(child(auth, 'dkim')).map((d) => {
      const selector = optional(text(child(d, 'selector')));
      return {
        domain: domainText(child(d, 'domain')),
        ...(selector ? { selector: intern(selector) } : {}),
        result: keyword(child(d, 'result')),
      };
    }),
    spf_results: list(child(auth, 'spf')).map((s) => {
      const scope = optional(keyword(child(s, 'scope')));
      return {
        domain: domainText(child(s, 'domain')),
        ...(scope ? { scope } : {}),
        result: keyword(child(s, 'result')),
      };
    }),
  };
  if (reasons.length) out.reasons = reasons;
  const envelopeFrom = optional(domainText(child(identifiers, 'envelope_from')));
  const envelopeTo = optional(domainText(child(identifiers, 'envelope_to')));
  if (envelopeFrom) out.envelope_from = envelopeFrom;
  if (envelopeTo) out.envelope_to = envelopeTo;
  return out;
}

/**
 * The report from the parsed `<feedback>` element. Both schema generations map to the
 * same shape: RFC 9990 adds `np`, `testing`, `discovery_method`, `generator` and drops
 * `pct`; the pre-RFC draft has no `<version>`. An empty `org_name` is derived from the
 * reporter's email domain. The records come already mapped and packed: the XML reader
 * maps each `<record>` as it streams past (see `aggregateRecordFrom`).
 */
export function aggregateReportFrom(feedback: Node, records: PackedRecordList): AggregateReport {
  const metadata = child(feedback, 'report_metadata');
  const published = child(feedback, 'policy_published');
  if (!metadata || !published) throw refuse('malformed', 'aggregate report needs report_metadata and policy_published');
  const email = text(child(metadata, 'email'));
  const orgName = text(child(metadata, 'org_name')) || domainOf(email);
  const reportId = text(child(metadata, 'report_id'));
  if (!orgName) throw refuse('malformed', 'report_metadata has neither org_name nor email');
  if (!reportId) throw refuse('malformed', 'report_metadata has no report_id');
  if (reportId.length > 256) throw refuse('malformed', 'report_id is longer than 256 characters');
  const range = child(metadata, 'date_range');
  const domain = normalizeDomain(text(child(published, 'domain')));
  if (!domain) throw refuse('malformed', 'policy_published has no domain');
  const pct = text(child(published, 'pct'));
  const policy: PublishedPolicy = { domain, p: keyword(child(published, 'p')) };
  for (const field of ['sp', 'np', 'adkim', 'aspf', 'fo', 'testing', 'discovery_method'] as const) {
    const value = keyword(child(published, field));
    if (value) policy[field] = value;
  }
  if (/^\d{1,3}$/.test(pct)) policy.pct = Number(pct);
  const generator = optional(text(child(metadata, 'generator')));
  return {
    kind: 'aggregate',
    org_name: orgName,
    email,
    report_id: reportId,
    begin: epoch(child(range, 'begin'), 'begin'),
    end: epoch(child(range, 'end'), 'end'),
    ...(generator ? { generator } : {}),
    policy,
    records,
  };
}

/** DMARC passes when an aligned identifier passed: policy_evaluated carries the aligned results. */
export const dmarcPassed = (r: Pick<AggregateRecord, 'dkim' | 'spf'>): boolean => r.dkim === 'pass' || r.spf === 'pass';
