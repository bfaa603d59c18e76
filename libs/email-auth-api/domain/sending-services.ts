/**
 * Known sending services, recognised from a source address's reverse DNS name (PTR) or
 * its network (ASN). A small hand-kept table: PTR suffixes are what the services document
 * for their outbound MTAs; ASNs are their registered networks (RouteViews/DB-IP data in
 * `@ip-location-db/asn`, see docs/decisions/0057-ip-data.md). A PTR match wins
 * over an ASN match, because shared clouds (Amazon, Google) host other senders too: an
 * address in a cloud ASN without a matching PTR counts only when the ASN is the
 * service's own mail network.
 */
export interface SendingService {
  id: string;
  name: string;
  /** Lower-case suffixes of PTR names, each matched at a label boundary. */
  ptrSuffixes: string[];
  /** ASNs used only (or overwhelmingly) for the service's outbound mail. */
  asns: number[];
}

export const SENDING_SERVICES: readonly SendingService[] = [
  { id: 'google', name: 'Google Workspace / Gmail', ptrSuffixes: ['google.com', 'googlemail.com'], asns: [15169] },
  {
    id: 'microsoft',
    name: 'Microsoft 365 / Outlook',
    ptrSuffixes: ['outbound.protection.outlook.com', 'protection.outlook.com', 'outlook.com', 'hotmail.com'],
    asns: [8075],
  },
  { id: 'amazon_ses', name: 'Amazon SES', ptrSuffixes: ['amazonses.com', 'smtp-out.amazonses.com'], asns: [] },
  { id: 'sendgrid', name: 'SendGrid', ptrSuffixes: ['sendgrid.net'], asns: [11377] },
  { id: 'mailgun', name: 'Mailgun', ptrSuffixes: ['mailgun.net', 'mailgun.org'], asns: [] },
  {
    id: 'mailchimp',
    name: 'Mailchimp / Mandrill',
    ptrSuffixes: ['mandrillapp.com', 'mcsv.net', 'mcdlv.net', 'rsgsv.net'],
    asns: [],
  },
  { id: 'postmark', name: 'Postmark', ptrSuffixes: ['mtasv.net'], asns: [] },
  { id: 'sparkpost', name: 'SparkPost', ptrSuffixes: ['sparkpostmail.com', 'mail.sparkpostmail.com'], asns: [] },
  { id: 'zoho', name: 'Zoho Mail', ptrSuffixes: ['zoho.com', 'zohomail.com', 'zoho.eu'], asns: [] },
  { id: 'fastmail', name: 'Fastmail', ptrSuffixes: ['messagingengine.com', 'fastmail.com'], asns: [] },
  { id: 'yahoo', name: 'Yahoo Mail', ptrSuffixes: ['yahoo.com', 'yahoo.net'], asns: [] },
  { id: 'proton', name: 'Proton Mail', ptrSuffixes: ['protonmail.ch', 'proton.ch'], asns: [] },
];

export interface Identification {
  service: SendingService | null;
  /** How it was recognised: the PTR name, the network, or not at all. */
  by: 'ptr' | 'asn' | null;
}

const endsAtLabel = (name: string, suffix: string): boolean => name === suffix || name.endsWith(`.${suffix}`);

/** `AS15169` / `15169` / `Unknown` as a number, or null. */
export function asnNumber(asn: string | null | undefined): number | null {
  const m = /^(?:AS)?(\d{1,10})$/i.exec(asn ?? '');
  return m ? Number(m[1]) : null;
}

/** The service a source belongs to, from its PTR names (any of them) and its ASN. */
export function identifySender(
  ptrNames: readonly string[],
  asn: number | null,
  table: readonly SendingService[] = SENDING_SERVICES,
): Identification {
  const names = ptrNames.map((n) => n.toLowerCase().replace(/\.$/, ''));
  for (const service of table) {
    if (names.some((n) => service.ptrSuffixes.some((s) => endsAtLabel(n, s)))) return { service, by: 'ptr' };
  }
  if (asn !== null) {
    const service = table.find((s) => s.asns.includes(asn));
    if (service) return { service, by: 'asn' };
  }
  return { service: null, by: null };
}
