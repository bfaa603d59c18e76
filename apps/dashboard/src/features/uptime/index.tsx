import { useMemo, useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { HistoryWindow, UptimeDashboard, UptimeHistory, UptimeLimits, UptimeRecord } from '../../api/types';
import { Link } from '../../app/link';
import { planAtLeast, type ScreenDef, type ScreenProps } from '../../app/screen';
import { TimeChart } from '../../components/chart';
import { dateTime, ms, percent } from '../../components/format';
import { ErrorNotice, Loaded } from '../../components/notices';
import { usePolling } from '../../components/poll';
import { useAction, useResource } from '../../components/resource';
import { Segmented, TIME_WINDOWS } from '../../components/segmented';
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
 * How often the uptime screens read again. The API does not say the check interval
 * (UPTIME_INTERVAL_SECONDS, 300 s by default, as low as a few seconds), so the screens poll
 * at the shortest interval an operator sets in practice; server-sent events replace this later.
 */
const REFRESH_MS = 5000;
/** Chart buckets are an hour or a day: a minute is often enough. */
const HISTORY_REFRESH_MS = 60_000;

const Status = ({ s }: { s: UptimeRecord['current_status'] }) => <span class={`status ${STATUS_CLASS[s]}`}>{STATUS_TEXT[s]}</span>;

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
  usePolling(true, REFRESH_MS, data.reload);
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
            <p class="hint">Each monitored host's address is checked by a TCP connection every few minutes. Your plan monitors up to {d.limits.monitor_limit} hosts.</p>
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
                { header: 'Host', cell: (r) => (r.monitor_enabled ? <Link to={`/uptime/${r.domain_id}`}>{r.fqdn}</Link> : r.fqdn) },
                { header: 'Status', cell: (r) => <Status s={r.current_status} /> },
                { header: '24 h', cell: (r) => percent(r.uptime_percentage_24h), numeric: true },
                { header: '7 days', cell: (r) => percent(r.uptime_percentage_7d), numeric: true },
                { header: 'Response', cell: (r) => ms(r.last_response_time_ms), numeric: true },
                { header: 'Last check', cell: (r) => (r.error ? `${dateTime(r.last_check_time)} (${r.error})` : dateTime(r.last_check_time)) },
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

function HistoryCharts({ h }: { h: UptimeHistory }) {
  const times = useMemo(() => h.points.map((p) => Date.parse(p.at) / 1000), [h]);
  const uptime = useMemo(() => ({ label: 'Uptime', unit: '%', values: h.points.map((p) => p.uptime_percentage) }), [h]);
  const response = useMemo(() => ({ label: 'Response time', unit: 'ms', values: h.points.map((p) => p.avg_response_time_ms) }), [h]);
  const hourly = h.bucket_seconds === 3600;
  const per = hourly ? 'per hour' : 'per day';
  const tickFormat = hourly ? '{HH}:{mm}' : '{MM}-{DD}';
  return (
    <div class="charts">
      <TimeChart title={`Uptime ${per} (%)`} times={times} series={uptime} yRange={[0, 100]} tickFormat={tickFormat} />
      <TimeChart
        title={`Average response time ${per} (ms)`}
        times={times}
        series={response}
        tickFormat={tickFormat}
        empty={h.points.some((p) => p.checks > 0) ? 'No response times: the host answered no check in this window.' : undefined}
      />
    </div>
  );
}

function UptimeHostScreen({ params }: ScreenProps) {
  const [window, setWindow] = useState<HistoryWindow>('24h');
  const record = useResource(() => api.get<UptimeRecord>(`/uptime/domain/${seg(params.id)}`), [params.id]);
  const history = useResource(() => api.get<UptimeHistory>(`/uptime/domain/${seg(params.id)}/history?window=${window}`), [params.id, window]);
  usePolling(true, REFRESH_MS, record.reload);
  usePolling(true, HISTORY_REFRESH_MS, history.reload);
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
              <dt>Response time</dt>
              <dd>{ms(r.last_response_time_ms)}</dd>
              <dt>Uptime</dt>
              <dd>
                24 h {percent(r.uptime_percentage_24h)} · 7 days {percent(r.uptime_percentage_7d)} · 30 days {percent(r.uptime_percentage_30d)}
              </dd>
            </dl>
          </section>
        )}
      </Loaded>
      <section class="card" aria-labelledby="history">
        <h2 id="history">History</h2>
        <Segmented label="Time window" options={[...TIME_WINDOWS]} value={window} onValue={setWindow} />
        <Loaded resource={history}>{(h) => <HistoryCharts h={h} />}</Loaded>
      </section>
    </div>
  );
}

const UPTIME = planAtLeast('plus', 'Uptime monitoring');

export const uptimeScreens: ScreenDef[] = [
  { path: '/uptime', title: 'Uptime', nav: { label: 'Uptime', order: 30 }, requires: UPTIME, component: UptimeScreen },
  { path: '/uptime/:id', title: 'Uptime history', requires: UPTIME, component: UptimeHostScreen },
];
