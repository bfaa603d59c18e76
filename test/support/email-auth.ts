import { DnsServer, ZoneIndex } from '../../libs/dns-server';
import { HttpClient } from './http-client';
import { delegateInWorld, putWorldZone } from '../../bench/support/world-dns';
import { postRaw } from './report-intake';
import { enableTwoFactor } from './totp';

/**
 * Aggregate reports for the DMARC nightly job in tests: each `add` is a real RFC 7489
 * aggregate report posted to the service's intake (`POST /admin/reports`), so the job reads
 * what ingestion stored, through the same port as in production.
 */
export class AggregateReportSender {
  private sequence = 0;

  constructor(private readonly baseUrl: string) {}

  /** One report for `zone` whose period begins at `begin`: `count` messages, `passing` of them passing DMARC. */
  async add(zone: string, begin: Date | string, count: number, passing: number): Promise<void> {
    const from = Math.floor(new Date(begin).getTime() / 1000);
    const row = (n: number, result: 'pass' | 'fail', ip: string) =>
      n === 0
        ? ''
        : `<record><row><source_ip>${ip}</source_ip><count>${n}</count><policy_evaluated><disposition>none</disposition>` +
          `<dkim>${result}</dkim><spf>${result}</spf></policy_evaluated></row><identifiers><header_from>${zone}</header_from></identifiers>` +
          `<auth_results><dkim><domain>${zone}</domain><result>${result}</result></dkim><spf><domain>${zone}</domain><result>${result}</result></spf></auth_results></record>`;
    const xml =
      `<?xml version="1.0" encoding="UTF-8"?><feedback><report_metadata><org_name>wizard-test</org_name>` +
      `<email>noreply@reporter.example</email><report_id>wizard-${(this.sequence += 1)}-${from}</report_id>` +
      `<date_range><begin>${from}</begin><end>${from + 86_399}</end></date_range></report_metadata>` +
      `<policy_published><domain>${zone}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published>` +
      row(passing, 'pass', '192.0.2.10') +
      row(count - passing, 'fail', '198.51.100.20') +
      `</feedback>`;
    const res = await postRaw(this.baseUrl, '/admin/reports', Buffer.from(xml), 'application/xml');
    if (res.status !== 201) throw new Error(`report for ${zone}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

/** "The world" for zone verification: a second DNS server delegating zones to the service's name servers. */
export async function startWorld(): Promise<{ world: ZoneIndex; server: DnsServer; port: number }> {
  const world = new ZoneIndex();
  const server = new DnsServer({ host: '127.0.0.1', port: 0, index: world });
  const { port } = await server.start();
  return { world, server, port };
}

/** Imports and verifies `zone` for the account and puts it in the account's Email Authentication add-on. */
export async function enrolZone(
  http: HttpClient,
  world: ZoneIndex,
  owner: { id: number; token: string },
  zone: string,
  options: { zoneFile?: string; addOnDomains?: string[] } = {},
): Promise<void> {
  const created = await http.post('/zones', { name: zone, zone_file: options.zoneFile }, owner.token);
  if (created.status !== 201) throw new Error(`import ${zone}: ${created.status} ${created.text}`);
  putWorldZone(world, zone, created.body.nameservers, 'ns1.example.net');
  delegateInWorld(world, zone, created.body.nameservers);
  const verified = await http.post(`/zones/${zone}/verify`, undefined, owner.token);
  if (verified.body.status !== 'verified') throw new Error(`verify ${zone}: ${verified.text}`);
  const sub = await http.admin('PUT', `/admin/accounts/${owner.id}/subscription`, {
    email_auth: { tier: 'standard', domains: options.addOnDomains ?? [zone] },
  });
  if (sub.status !== 200) throw new Error(`subscription: ${sub.text}`);
}

/**
 * Makes `owner` an Email Authentication Enterprise customer for `domains`, turns 2FA on
 * (oathtool computes the code at the clock's time) and creates an `email_auth:read` key.
 */
export async function emailAuthReadKey(
  http: HttpClient,
  owner: { id: number; token: string },
  domains: string[],
  at: Date,
): Promise<string> {
  const sub = await http.admin('PUT', `/admin/accounts/${owner.id}/subscription`, {
    email_auth: { tier: 'enterprise', domains },
  });
  if (sub.status !== 200) throw new Error(`enterprise: ${sub.text}`);
  await enableTwoFactor(http, owner.token, at);
  const key = await http.post('/api-keys', { name: 'integration', access: 'email_auth:read' }, owner.token);
  if (key.status !== 201) throw new Error(`key: ${key.text}`);
  return key.body.key;
}

/** A failure a TLS report's policy result lists: its result type, the sending MTA and how many sessions failed. */
export interface TlsFailure {
  type: string;
  ip: string;
  sessions: number;
}

/** One policy result of a TLS report: an MTA-STS policy (the default) or none found. */
export interface TlsPolicyResult {
  type?: 'sts' | 'no-policy-found';
  successful: number;
  failures?: TlsFailure[];
}

/** An RFC 8460 TLS report (JSON) by `reporter` for `zone` covering the UTC day `day`, one policy result each. */
export function tlsReport(
  zone: string,
  day: string,
  reportId: string,
  results: TlsPolicyResult[],
  reporter = 'TLS Reporter',
): Buffer {
  const policy = (type: TlsPolicyResult['type']) =>
    type === 'no-policy-found'
      ? { 'policy-type': type, 'policy-domain': zone }
      : {
          'policy-type': 'sts',
          'policy-string': ['version: STSv1', 'mode: testing', `mx: mx.${zone}`, 'max_age: 86400'],
          'policy-domain': zone,
          'mx-host': [`mx.${zone}`],
        };
  return Buffer.from(
    JSON.stringify({
      'organization-name': reporter,
      'date-range': { 'start-datetime': `${day}T00:00:00Z`, 'end-datetime': `${day}T23:59:59Z` },
      'contact-info': 'tlsrpt@reporter.example',
      'report-id': reportId,
      policies: results.map(({ type, successful, failures = [] }) => ({
        policy: policy(type),
        summary: {
          'total-successful-session-count': successful,
          'total-failure-session-count': failures.reduce((sum, f) => sum + f.sessions, 0),
        },
        ...(failures.length
          ? {
              'failure-details': failures.map((f) => ({
                'result-type': f.type,
                'sending-mta-ip': f.ip,
                'receiving-mx-hostname': `mx.${zone}`,
                'failed-session-count': f.sessions,
              })),
            }
          : {}),
      })),
    }),
  );
}

/** A TLS report for `zone` covering the UTC day `day`, posted to the operators' intake. */
export async function postTlsReport(
  baseUrl: string,
  zone: string,
  day: string,
  successful: number,
  failed: number,
  reportId = `tls-${zone}-${day}`,
): Promise<void> {
  const failures = failed > 0 ? [{ type: 'certificate-expired', ip: '192.0.2.33', sessions: failed }] : [];
  const report = tlsReport(zone, day, reportId, [{ successful, failures }], 'tls-test-reporter');
  const res = await postRaw(baseUrl, '/admin/reports', report, 'application/tlsrpt+json');
  if (res.status !== 201) throw new Error(`TLS report for ${zone}: ${res.status} ${JSON.stringify(res.body)}`);
}
