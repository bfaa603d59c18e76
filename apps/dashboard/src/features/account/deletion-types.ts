/** `DELETE /account` (decision 0090): the current password, and `code` when two-factor authentication is on. */
export interface DeleteAccountRequest {
  password: string;
  code?: string;
}

/** What deleting an account removes, as the confirmation lists it. */
export const REMOVED_ON_DELETION: readonly string[] = [
  'Every DDNS host: the DNS server stops answering for them within seconds',
  'Every zone with its records, DNSSEC keys and secondaries: they are no longer served',
  'Certificates (no longer renewed), uptime monitors and webhook endpoints',
  'API keys and TSIG keys: routers and scripts using them are refused at once',
  'Every session: you are signed out everywhere',
];

/** What it keeps. */
export const KEPT_ON_DELETION: readonly string[] = [
  'The audit log of the account (every change, who made it and from where, and the deletion itself). It is kept after the account is gone, for the service’s legal retention, and only operators can read it then: download your copy first.',
  'Your username, email and a hash of your password as recorded at sign-up, in the service’s permanent history of changes (it is append-only); no one can sign in with them any more.',
  'Usage data until it ages out: DNS query logs (two months), uptime checks (31 days), DMARC and TLS reports (three years).',
];
