import { useMemo, useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { Account } from '../../api/types';
import { Link } from '../../app/link';
import type { PlanRequirement, ScreenDef, ScreenProps } from '../../app/screen';
import { TimeChart } from '../../components/chart';
import { SelectField } from '../../components/forms';
import { dateTime, percent } from '../../components/format';
import { Loaded } from '../../components/notices';
import { useResource } from '../../components/resource';
import { DataTable } from '../../components/table';
import { PagedTable } from './paged-table';
import type {
  AggregateReport,
  AggregateReportDetail,
  Counts,
  DmarcSources,
  DmarcSummary,
  EmailAuthEvent,
  FailureReport,
  ReportRow,
  TlsSummary,
} from './types';

export const EMAIL_AUTH_ADDON: PlanRequirement = {
  allows: (a: Account) => a.email_auth.tier !== 'none' && a.email_auth.domains.length > 0,
  badge: 'Add-on',
  message: 'Email authentication reports need the Email Authentication add-on for at least one of your zones.',
};

/** A 0..1 share as a percentage with one decimal, as the wizard shows pass rates. */
const share = (v: number | null): string => (v == null ? '—' : percent(Math.round(v * 1000) / 10));
const day = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 1000;
/** A network as AS number and name; just "Unknown" when the address is in no known network. */
const network = (n: { asn: string; org: string }): string => (n.asn === 'Unknown' ? 'Unknown' : `${n.asn} ${n.org}`);
const base = (zone: string) => `/email-auth/domains/${seg(zone)}`;

const SEVERITY_CLASS: Record<EmailAuthEvent['severity'], string> = {
  info: 'status-off',
  warning: 'status-warn',
  critical: 'status-bad',
};

const DAYS = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
] as const;
type Days = (typeof DAYS)[number]['value'];

function CountsTable({ caption, counts }: { caption: string; counts: Counts }) {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return (
    <DataTable
      caption={caption}
      rows={rows}
      rowKey={([k]) => k}
      empty="No messages."
      columns={[
        { header: caption, cell: ([k]) => k },
        { header: 'Messages', cell: ([, n]) => n, numeric: true },
      ]}
    />
  );
}

function DmarcResults({ zone, days }: { zone: string; days: Days }) {
  const summary = useResource(() => api.get<DmarcSummary>(`${base(zone)}/dmarc/summary?days=${days}`), [zone, days]);
  return (
    <section class="card" aria-labelledby="dmarc-results">
      <h2 id="dmarc-results">DMARC results</h2>
      <Loaded resource={summary}>
        {(s) => {
          const times = s.daily.map((d) => day(d.date));
          const rates = {
            label: 'DMARC pass rate',
            unit: '%',
            values: s.daily.map((d) => (d.pass_rate == null ? null : Math.round(d.pass_rate * 1000) / 10)),
          };
          const volume = { label: 'Reported', unit: 'messages', values: s.daily.map((d) => d.messages) };
          return (
            <div class="stack">
              <ul class="tiles" aria-label="DMARC totals">
                <li class="tile">
                  <span class="tile-figure">{s.messages}</span>
                  <span>messages reported</span>
                </li>
                <li class="tile">
                  <span class="tile-figure">{share(s.pass_rate)}</span>
                  <span>passed DMARC</span>
                </li>
                <li class="tile">
                  <span class="tile-figure">{s.reports}</span>
                  <span>aggregate reports</span>
                </li>
                <li class="tile">
                  <span class="tile-figure">{s.published_policy ? `p=${s.published_policy.p}` : '—'}</span>
                  <span>policy receivers saw</span>
                </li>
              </ul>
              <div class="charts">
                <TimeChart
                  title="DMARC pass rate per day (%)"
                  times={times}
                  series={rates}
                  yRange={[0, 100]}
                  tickFormat="{MM}-{DD}"
                />
                <TimeChart title="Messages reported per day" times={times} series={volume} tickFormat="{MM}-{DD}" />
              </div>
              <div class="columns">
                <CountsTable caption="Disposition" counts={s.disposition} />
                <CountsTable caption="DKIM (aligned)" counts={s.dkim} />
                <CountsTable caption="SPF (aligned)" counts={s.spf} />
              </div>
            </div>
          );
        }}
      </Loaded>
    </section>
  );
}

function Sources({ zone, days }: { zone: string; days: Days }) {
  const sources = useResource(() => api.get<DmarcSources>(`${base(zone)}/dmarc/sources?days=${days}`), [zone, days]);
  return (
    <section class="card" aria-labelledby="sources">
      <h2 id="sources">Who sends as {zone}</h2>
      <Loaded resource={sources}>
        {(s) => (
          <div class="stack">
            <p class="hint">
              {s.identified_messages} of {s.messages} messages came from known sending services;{' '}
              {s.unidentified_source_count} other addresses sent {s.unidentified_messages}.
            </p>
            <DataTable
              caption="Sending services"
              rows={s.services}
              rowKey={(r) => r.id}
              empty="No known sending service in this window."
              columns={[
                { header: 'Service', cell: (r) => r.name },
                { header: 'Messages', cell: (r) => r.messages, numeric: true },
                { header: 'Passed', cell: (r) => share(r.pass_rate), numeric: true },
                { header: 'Addresses', cell: (r) => r.source_ips, numeric: true },
              ]}
            />
            <DataTable
              caption="Unidentified sources"
              rows={s.unidentified_sources}
              rowKey={(r) => r.source_ip}
              empty="Every message came from a known service."
              columns={[
                { header: 'Address', cell: (r) => (r.ptr ? `${r.source_ip} (${r.ptr})` : r.source_ip) },
                { header: 'Network', cell: (r) => network(r.network) },
                { header: 'Country', cell: (r) => r.country },
                { header: 'Sending domains', cell: (r) => r.sending_domains.join(', ') },
                { header: 'Messages', cell: (r) => r.messages, numeric: true },
                { header: 'Passed', cell: (r) => share(r.pass_rate), numeric: true },
              ]}
            />
          </div>
        )}
      </Loaded>
    </section>
  );
}

function TlsReports({ zone, days }: { zone: string; days: Days }) {
  const tls = useResource(() => api.get<TlsSummary>(`${base(zone)}/tls-rpt/summary?days=${days}`), [zone, days]);
  return (
    <section class="card" aria-labelledby="tls-reports">
      <h2 id="tls-reports">TLS reports (TLS-RPT)</h2>
      <Loaded resource={tls}>
        {(t) => (
          <div class="stack">
            <ul class="tiles" aria-label="TLS totals">
              <li class="tile">
                <span class="tile-figure">{t.successful_sessions}</span>
                <span>sessions succeeded</span>
              </li>
              <li class="tile">
                <span class="tile-figure">{t.failed_sessions}</span>
                <span>sessions failed</span>
              </li>
              <li class="tile">
                <span class="tile-figure">{share(t.success_rate)}</span>
                <span>success rate</span>
              </li>
            </ul>
            <TimeChart
              title="Failed TLS sessions per day"
              times={t.daily.map((d) => day(d.date))}
              series={{ label: 'Failed', unit: 'sessions', values: t.daily.map((d) => d.failed_sessions) }}
              tickFormat="{MM}-{DD}"
            />
            <div class="columns">
              <DataTable
                caption="Failure types"
                rows={t.failure_types}
                rowKey={(r) => r.result_type}
                empty="No failed sessions."
                columns={[
                  { header: 'Failure', cell: (r) => r.result_type },
                  { header: 'Sessions', cell: (r) => r.failed_sessions, numeric: true },
                ]}
              />
              <DataTable
                caption="Failing senders"
                rows={t.failing_senders}
                rowKey={(r) => r.sending_mta_ip}
                empty="No failing sender."
                columns={[
                  { header: 'Sending server', cell: (r) => r.sending_mta_ip },
                  { header: 'Failures', cell: (r) => r.result_types.join(', ') },
                  { header: 'Sessions', cell: (r) => r.failed_sessions, numeric: true },
                ]}
              />
            </div>
          </div>
        )}
      </Loaded>
    </section>
  );
}

function EmailReportsScreen({ account, params }: ScreenProps) {
  const zones = account.email_auth.domains;
  const [zone, setZone] = useState(params.zone && zones.includes(params.zone) ? params.zone : zones[0]);
  const [days, setDays] = useState<Days>('30');
  const zoneOptions = useMemo(() => zones.map((z) => ({ value: z, label: z })), [zones]);
  return (
    <div class="stack">
      <form class="filters" aria-label="Report filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Zone" value={zone} onValue={setZone} options={zoneOptions} />
        <SelectField label="Window" value={days} onValue={setDays} options={[...DAYS]} />
      </form>
      <DmarcResults zone={zone} days={days} />
      <Sources zone={zone} days={days} />
      <section class="card" aria-labelledby="aggregate-reports">
        <h2 id="aggregate-reports">Aggregate reports, newest first</h2>
        <PagedTable<AggregateReport>
          path={`${base(zone)}/dmarc/reports?days=${days}`}
          caption="Aggregate reports"
          rowKey={(r) => r.id}
          empty="No aggregate report received in this window."
          more="Show older reports"
          columns={[
            {
              header: 'Reporter',
              cell: (r) => <Link to={`/email-reports/${seg(zone)}/reports/${seg(r.id)}`}>{r.org_name}</Link>,
            },
            { header: 'Period', cell: (r) => `${dateTime(r.begin)} – ${dateTime(r.end)}` },
            { header: 'Messages', cell: (r) => r.messages, numeric: true },
            { header: 'Passed', cell: (r) => share(r.pass_rate), numeric: true },
            { header: 'Received', cell: (r) => dateTime(r.received_at) },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="failure-reports">
        <h2 id="failure-reports">Failure reports, newest first</h2>
        <PagedTable<FailureReport>
          path={`${base(zone)}/dmarc/forensic?days=${days}`}
          caption="Failure reports"
          rowKey={(r) => r.id}
          empty="No failure report received in this window."
          more="Show older failure reports"
          columns={[
            { header: 'Received', cell: (r) => dateTime(r.received_at) },
            { header: 'Reporter', cell: (r) => r.reporter },
            { header: 'Source', cell: (r) => (r.source_ip ? `${r.source_ip} (${r.country ?? 'Unknown'})` : '—') },
            { header: 'Failure', cell: (r) => r.auth_failure ?? r.feedback_type },
            { header: 'Mail from', cell: (r) => r.mail_from ?? r.mail_from_domain ?? '—' },
            { header: 'Subject', cell: (r) => r.subject ?? '—' },
            {
              header: 'DKIM',
              cell: (r) => (r.dkim_domain ? `${r.dkim_domain}${r.dkim_selector ? ` (${r.dkim_selector})` : ''}` : '—'),
            },
          ]}
        />
      </section>
      <TlsReports zone={zone} days={days} />
      <section class="card" aria-labelledby="events">
        <h2 id="events">Events, newest first</h2>
        <p class="hint">
          Reports received, policy changes and alerts for {zone}, the same entries the email-authentication API's event
          log gives integrations.
        </p>
        <PagedTable<EmailAuthEvent>
          path={`/email-auth/events?domain=${encodeURIComponent(zone)}`}
          caption="Events"
          rowKey={(e) => e.id}
          empty="Nothing has happened yet."
          more="Show older events"
          columns={[
            { header: 'When', cell: (e) => dateTime(e.occurred_at) },
            {
              header: 'Severity',
              cell: (e) => <span class={`status ${SEVERITY_CLASS[e.severity]}`}>{e.severity}</span>,
            },
            { header: 'Event', cell: (e) => e.title },
          ]}
        />
      </section>
    </div>
  );
}

function ReportScreen({ params }: ScreenProps) {
  const path = `${base(params.zone)}/dmarc/reports/${seg(params.id)}`;
  const report = useResource(() => api.get<AggregateReportDetail>(`${path}?limit=1`), [path]);
  return (
    <div class="stack">
      <Loaded resource={report}>
        {(r) => (
          <section class="card" aria-labelledby="report">
            <h2 id="report">
              {r.org_name}: {r.report_id}
            </h2>
            <dl class="facts">
              <dt>Period</dt>
              <dd>
                {dateTime(r.begin)} – {dateTime(r.end)}
              </dd>
              <dt>Policy seen</dt>
              <dd>
                p={r.policy_published.p}
                {r.policy_published.pct != null ? `, pct=${r.policy_published.pct}` : ''}
              </dd>
              <dt>Messages</dt>
              <dd>
                {r.messages}, {share(r.pass_rate)} passed DMARC
              </dd>
            </dl>
          </section>
        )}
      </Loaded>
      <section class="card" aria-labelledby="rows">
        <h2 id="rows">Rows</h2>
        <PagedTable<ReportRow, AggregateReportDetail>
          path={path}
          pageOf={(body) => body.rows}
          caption="Report rows"
          rowKey={(row) => row.index}
          empty="The report has no rows."
          more="Show more rows"
          columns={[
            { header: 'Source', cell: (row) => row.source_ip },
            { header: 'Country', cell: (row) => row.country },
            { header: 'Network', cell: (row) => network(row.network) },
            { header: 'Messages', cell: (row) => row.count, numeric: true },
            { header: 'Disposition', cell: (row) => row.disposition },
            { header: 'DKIM', cell: (row) => row.dkim },
            { header: 'SPF', cell: (row) => row.spf },
            { header: 'From', cell: (row) => row.header_from },
          ]}
        />
      </section>
    </div>
  );
}

export const emailReportScreens: ScreenDef[] = [
  {
    path: '/email-reports',
    title: 'Email reports',
    nav: { label: 'Email reports', order: 65 },
    requires: EMAIL_AUTH_ADDON,
    component: EmailReportsScreen,
  },
  {
    path: '/email-reports/:zone/reports/:id',
    title: (p) => `Aggregate report for ${p.zone}`,
    requires: EMAIL_AUTH_ADDON,
    component: ReportScreen,
  },
];
