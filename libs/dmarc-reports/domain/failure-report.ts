import { normalizeDomain } from './aggregate-report';
import { refuse } from './report-refusal';

/** Header-style fields by lower-cased name (first occurrence). */
export type Fields = Record<string, string>;

/**
 * What the MIME layer found in a failure report mail: the RFC 6591 `message/feedback-report`
 * fields when there is such a part, else the key/value lines of a plain-text summary
 * (Exim and others send only that), plus the headers of the original message.
 */
export interface FailureReportInput {
  /** Address the report mail came from. */
  reporter: string;
  arf: Fields | null;
  summary: Fields | null;
  original: Fields | null;
}

/**
 * A failure report as kept. `subject` and `mail_from` (the full address) are private: the
 * application seals them before they reach an event, and the read API shows them only to
 * keys with the failure-report-subjects flag. Message ids are never part of it.
 */
export interface FailureReport {
  kind: 'failure';
  reporter: string;
  reported_domain: string;
  feedback_type: string;
  arrival_date: string | null;
  source_ip: string | null;
  auth_failure: string | null;
  delivery_result: string | null;
  authentication_results: string | null;
  dkim_domain: string | null;
  dkim_selector: string | null;
  mail_from_domain: string | null;
  rcpt_domain: string | null;
  subject: string | null;
  mail_from: string | null;
}

const RFC6591_DELIVERY = new Set(['delivered', 'spam', 'policy', 'reject', 'other']);

/** Values outside RFC 6591 (`smg-policy-action`) map to the nearest RFC value, as parsedmarc does. */
export const deliveryResult = (raw: string | undefined): string | null => {
  const value = (raw ?? '').trim().toLowerCase();
  if (!value) return null;
  if (RFC6591_DELIVERY.has(value)) return value;
  if (value.includes('policy')) return 'policy';
  if (value.includes('reject')) return 'reject';
  if (value.includes('spam') || value.includes('quarantine')) return 'spam';
  return 'other';
};

const emailAddress = (raw: string | undefined): string | null => {
  const match = /<([^<>\s]*)>/.exec(raw ?? '') ?? /([^\s<>"]+@[^\s<>"]+)/.exec(raw ?? '');
  const address = (match?.[1] ?? '').trim();
  return address ? address : null;
};

const domainOfAddress = (address: string | null): string | null => {
  if (!address) return null;
  const at = address.lastIndexOf('@');
  const domain = normalizeDomain(at >= 0 ? address.slice(at + 1) : address);
  return domain || null;
};

const dateIso = (raw: string | undefined): string | null => {
  if (!raw) return null;
  const t = Date.parse(raw.replace(/\s+\([A-Z]+\)\s*$/, ''));
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

/** A `tag=value; …` field (DKIM-Signature) as a map. */
const tags = (raw: string | undefined): Fields =>
  Object.fromEntries(
    (raw ?? '')
      .split(';')
      .map((part) => part.split('='))
      .filter((kv) => kv.length >= 2)
      .map(([k, ...v]) => [k.trim().toLowerCase(), v.join('=').replace(/\s+/g, '')]),
  );

const headerFromDomain = (authResults: string | undefined): string | null =>
  domainOfAddress(/header\.from=([^\s;]+)/i.exec(authResults ?? '')?.[1] ?? null);

const ipOf = (raw: string | undefined): string | null => {
  const value = (raw ?? '').trim();
  return /^[0-9a-fA-F:.]{2,45}$/.test(value) ? value : null;
};

/** Key/value lines of a plain-text summary ("  Sender Domain: example.com"). */
export function summaryFields(text: string): Fields {
  const fields: Fields = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z][A-Za-z -]{1,40}):\s*(.+?)\s*$/.exec(line);
    if (m && !(m[1].toLowerCase() in fields)) fields[m[1].toLowerCase()] = m[2];
  }
  return fields;
}

export function failureReportFrom(input: FailureReportInput): FailureReport {
  const arf = input.arf;
  const summary = input.summary ?? {};
  const original = input.original ?? {};
  if (!arf && !summary['sender domain'])
    throw refuse('unsupported', 'no message/feedback-report part and no failure summary');
  const authResults = arf?.['authentication-results'] ?? original['authentication-results'];
  const reportedDomain = normalizeDomain(
    arf?.['reported-domain'] ??
      summary['sender domain'] ??
      headerFromDomain(authResults) ??
      domainOfAddress(emailAddress(original.from)) ??
      '',
  );
  if (!reportedDomain) throw refuse('malformed', 'failure report names no reported domain');
  const originalFrom = emailAddress(original.from);
  const arfMailFrom = emailAddress(arf?.['original-mail-from']);
  const mailFrom = arfMailFrom ?? originalFrom;
  const signature = tags(original['dkim-signature']);
  const dkimDomain = arf?.['dkim-domain'] ?? signature.d ?? null;
  return {
    kind: 'failure',
    reporter: input.reporter.toLowerCase(),
    reported_domain: reportedDomain,
    feedback_type: (arf?.['feedback-type'] ?? 'auth-failure').trim().toLowerCase(),
    arrival_date: dateIso(arf?.['arrival-date'] ?? arf?.['received-date'] ?? summary['received date'] ?? original.date),
    source_ip: ipOf(arf?.['source-ip'] ?? summary['sender ip address']),
    auth_failure: arf?.['auth-failure']?.trim().toLowerCase() ?? (summary['dmarc results'] ? 'dmarc' : null),
    delivery_result: deliveryResult(arf?.['delivery-result'] ?? summary['dmarc results']?.split(',')[1]),
    authentication_results: authResults?.replace(/\s+/g, ' ').trim() ?? null,
    dkim_domain: dkimDomain ? normalizeDomain(dkimDomain) : null,
    dkim_selector: arf?.['dkim-selector'] ?? signature.s ?? null,
    mail_from_domain: domainOfAddress(mailFrom),
    rcpt_domain: domainOfAddress(emailAddress(arf?.['original-rcpt-to'] ?? original.to)),
    subject: original.subject ?? null,
    mail_from: mailFrom,
  };
}
