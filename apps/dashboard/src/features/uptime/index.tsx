import { useMemo, useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type {
  CheckWindow,
  HistoryWindow,
  UptimeChecks,
  UptimeDashboard,
  UptimeHistory,
  UptimeLimits,
  UptimeRecord,
} from '../../api/types';
import { Link } from '../../app/link';
import { planAtLeast, type ScreenDef, type ScreenProps } from '../../app/screen';
import { TimeChart } from '../../components/chart';
import { dateTime, duration, ms, percent } from '../../components/format';
import { useLive } from '../../components/live';
import { ErrorNotice, Loaded } from '../../components/notices';
import { usePolling } from '../../components/poll';
import { useAction, useResource } from '../../components/resource';
import { Segmented } from '../../components/segmented';
import { DataTable } from '../../components/table';

const STATUS_TEXT: Record<UptimeRecord['current_status'], string> = {
  operational: 'Up',
  down: 'Down',
  pending: 'Waiting for first check',
  no_ip: 'No address',
  disabled: 'Not monitored',
};
const STATUS_CLASS: Record<UptimeRecord['current_status'], string> = {
  operational: 'status-ok',
  down: 'status-bad',
  pending: 'status-warn',
  no_ip: 'status-warn',
  disabled: 'status-off',
};
/**
 * The screens read again when the server says a check or a monitor changed (live notices,
 * decision 0085); this slow poll only covers a stream that cannot be opened (a proxy that
 * refuses event streams).
 */
const FALLBACK_REFRESH_MS = 60_000;

const Status = ({ s }: { s: UptimeRecord['current_status'] }) => (
  <span class={`status ${STATUS_CLASS[s]}`}>{STATUS_TEXT[s]}</span>
);

function Totals({ d, limits }: { d: UptimeDashboard; limits: UptimeLimits }) {
  return (
    <ul class="tiles" aria-label="Totals">
      <li class="tile">
        <span class="tile-figure">
          {d.domains_up}/{d.domains_monitored}
        </span>
        <span>hosts up</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{percent(d.overall_uptime_24h)}</span>
        <span>uptime, 24 h</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{percent(d.overall_uptime_7d)}</span>
        <span>uptime, 7 days</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{percent(d.overall_uptime_30d)}</span>
        <span>uptime, 30 days</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{ms(d.average_response_time_ms)}</span>
        <span>average response</span>
      </li>
      <li class="tile">
        <span class="tile-figure">
          {limits.monitors_enabled}/{limits.monitor_limit}
        </span>
        <span>monitors used on your plan</span>
      </li>
    </ul>
  );
}

function UptimeScreen(_: ScreenProps) {
  const data = useResource(async () => {
    const [dashboard, limits, list] = await Promise.all([
      api.get<UptimeDashboard>('/uptime/dashboard'),
      api.get<UptimeLimits>('/uptime/limits'),
      api.get<{ domains: UptimeRecord[] }>('/uptime/domains'),
    ]);
    return { dashboard, limits, records: list.domains };
  });
  useLive(['uptime'], data.reload);
  usePolling(true, FALLBACK_REFRESH_MS, data.reload);
  const toggle = useAction(async (id: number, enabled: boolean) => {
    await api.post(`/uptime/domain/${seg(id)}/monitor`, { enabled });
    await data.reload();
  });
  return (
    <Loaded resource={data}>
      {(d) => (
        <div class="stack">
          <Totals d={d.dashboard} limits={d.limits} />
          <section class="card" aria-labelledby="monitors">
            <h2 id="monitors">Hosts</h2>
            <p class="hint">
              Each monitored host's address is checked by a TCP connection every few minutes. Your plan monitors up to{' '}
              {d.limits.monitor_limit} hosts.
            </p>
            <ErrorNotice error={toggle.error} />
            <DataTable
              caption="Uptime per host"
              rows={d.records}
              rowKey={(r) => r.domain_id}
              empty={
                <>
                  No hosts to monitor. <Link to="/ddns">Create a DDNS host</Link> first.
                </>
              }
              columns={[
                {
                  header: 'Host',
                  cell: (r) => (r.monitor_enabled ? <Link to={`/uptime/${r.domain_id}`}>{r.fqdn}</Link> : r.fqdn),
                },
                { header: 'Status', cell: (r) => <Status s={r.current_status} /> },
                { header: '24 h', cell: (r) => percent(r.uptime_percentage_24h), numeric: true },
                { header: '7 days', cell: (r) => percent(r.uptime_percentage_7d), numeric: true },
                { header: 'Response', cell: (r) => ms(r.last_response_time_ms), numeric: true },
                {
                  header: 'Last check',
                  cell: (r) => (r.error ? `${dateTime(r.last_check_time)} (${r.error})` : dateTime(r.last_check_time)),
                },
                {
                  header: 'Monitoring',
                  cell: (r) => (
                    <button
                      type="button"
                      class="button-secondary"
                      disabled={toggle.busy}
                      onClick={() => void toggle.run(r.domain_id, !r.monitor_enabled)}
                      aria-label={`${r.monitor_enabled ? 'Stop monitoring' : 'Monitor'} ${r.fqdn}`}
                    >
                      {r.monitor_enabled ? 'Stop' : 'Monitor'}
                    </button>
                  ),
                },
              ]}
            />
          </section>
        </div>
      )}
    </Loaded>
  );
}

type Window = CheckWindow | HistoryWindow;
/** The last hours come from the raw checks (minutes); days from the daily buckets. */
const WINDOWS: { value: Window; label: string }[] = [
  { value: '1h', label: '1 hour' },
  { value: '6h', label: '6 hours' },
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
];
const FROM_CHECKS = new Set<Window>(['1h', '6h', '24h']);

function per(bucketSeconds: number): string {
  if (bucketSeconds === 86_400) return 'per day';
  if (bucketSeconds === 3600) return 'per hour';
  return bucketSeconds === 60 ? 'per minute' : `per ${bucketSeconds / 60} minutes`;
}

function HistoryCharts({ points, bucketSeconds }: { points: UptimeHistory['points']; bucketSeconds: number }) {
  const times = useMemo(() => points.map((p) => Date.parse(p.at) / 1000), [points]);
  const uptime = useMemo(
    () => ({ label: 'Uptime', unit: '%', values: points.map((p) => p.uptime_percentage) }),
    [points],
  );
  const response = useMemo(
    () => ({ label: 'Response time', unit: 'ms', values: points.map((p) => p.avg_response_time_ms) }),
    [points],
  );
  const tickFormat = bucketSeconds < 86_400 ? '{HH}:{mm}' : '{MM}-{DD}';
  return (
    <div class="charts">
      <TimeChart
        title={`Uptime ${per(bucketSeconds)} (%)`}
        times={times}
        series={uptime}
        yRange={[0, 100]}
        tickFormat={tickFormat}
      />
      <TimeChart
        title={`Average response time ${per(bucketSeconds)} (ms)`}
        times={times}
        series={response}
        tickFormat={tickFormat}
        empty={
          points.some((p) => p.checks > 0) ? 'No response times: the host answered no check in this window.' : undefined
        }
      />
    </div>
  );
}

function Incidents({ c }: { c: UptimeChecks }) {
  return (
    <>
      {!c.complete && (
        <p class="hint">Checks are very frequent: only the most recent part of the last 24 hours is shown.</p>
      )}
      <DataTable
        caption="Down periods in the last 24 hours, newest first"
        rows={c.incidents}
        rowKey={(i) => i.started_at}
        empty="No down periods in the last 24 hours."
        columns={[
          { header: 'Went down', cell: (i) => dateTime(i.started_at) },
          {
            header: 'Back up',
            cell: (i) => (i.ended_at ? dateTime(i.ended_at) : <span class="status status-bad">Still down</span>),
          },
          { header: 'Lasted', cell: (i) => duration(i.duration_seconds), numeric: true },
          { header: 'Failed checks', cell: (i) => i.failed_checks, numeric: true },
          { header: 'Error', cell: (i) => i.error ?? '—' },
        ]}
      />
    </>
  );
}

const portsText = (c: UptimeChecks) =>
  c.ports.length === 1
    ? `TCP port ${c.ports[0]}`
    : `TCP ports ${c.ports.join(', ')} in turn (up when any accepts)${c.last_port ? `; last check: port ${c.last_port}` : ''}`;

function UptimeHostScreen({ params }: ScreenProps) {
  const [window, setWindow] = useState<Window>('1h');
  const id = params.id;
  const record = useResource(() => api.get<UptimeRecord>(`/uptime/domain/${seg(id)}`), [id]);
  const day = useResource(() => api.get<UptimeChecks>(`/uptime/domain/${seg(id)}/checks?window=24h`), [id]);
  const history = useResource(async () => {
    if (!FROM_CHECKS.has(window)) {
      const h = await api.get<UptimeHistory>(`/uptime/domain/${seg(id)}/history?window=${window}`);
      return { points: h.points, bucket_seconds: h.bucket_seconds };
    }
    const c = await api.get<UptimeChecks>(`/uptime/domain/${seg(id)}/checks?window=${window}`);
    return { points: c.points, bucket_seconds: c.bucket_seconds };
  }, [id, window]);
  const mine = (c: { ref?: string }) => c.ref === undefined || c.ref === id;
  useLive(['uptime'], () => Promise.all([record.reload(), day.reload(), history.reload()]), mine);
  usePolling(true, FALLBACK_REFRESH_MS, record.reload);
  return (
    <div class="stack">
      <Loaded resource={record}>
        {(r) => (
          <section class="card" aria-labelledby="now">
            <h2 id="now">{r.fqdn}</h2>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Status s={r.current_status} />
              </dd>
              <dt>Last check</dt>
              <dd>
                {dateTime(r.last_check_time)}
                {r.error && ` (${r.error})`}
              </dd>
              <dt>Checked on</dt>
              <dd>{day.data ? portsText(day.data) : '…'}</dd>
              <dt>Response time</dt>
              <dd>{ms(r.last_response_time_ms)}</dd>
              <dt>Uptime</dt>
              <dd>
                24 h {percent(r.uptime_percentage_24h)} · 7 days {percent(r.uptime_percentage_7d)} · 30 days{' '}
                {percent(r.uptime_percentage_30d)}
              </dd>
            </dl>
          </section>
        )}
      </Loaded>
      <section class="card" aria-labelledby="history">
        <h2 id="history">History</h2>
        <Segmented label="Time window" options={WINDOWS} value={window} onValue={setWindow} />
        <Loaded resource={history}>
          {(h) => <HistoryCharts points={h.points} bucketSeconds={h.bucket_seconds} />}
        </Loaded>
      </section>
      <section class="card" aria-labelledby="incidents">
        <h2 id="incidents">Incidents</h2>
        <Loaded resource={day}>{(c) => <Incidents c={c} />}</Loaded>
      </section>
    </div>
  );
}

const UPTIME = planAtLeast('plus', 'Uptime monitoring');

export const uptimeScreens: ScreenDef[] = [
  { path: '/uptime', title: 'Uptime', nav: { label: 'Uptime', order: 30 }, requires: UPTIME, component: UptimeScreen },
  { path: '/uptime/:id', title: 'Uptime history', requires: UPTIME, component: UptimeHostScreen },
];
