import { useCallback, useState } from 'preact/hooks';
import { api } from '../../api/client';
import type { DdnsHost, Zone } from '../../api/types';
import type { ScreenProps } from '../../app/screen';
import { SelectField } from '../../components/forms';
import { Loaded, Notice } from '../../components/notices';
import { useResource } from '../../components/resource';
import { Segmented, TIME_WINDOWS } from '../../components/segmented';
import { Breakdowns } from './breakdowns';
import { ExportCard } from './export';
import { RecentQueries } from './recent';
import type { AnalyticsSummary, AnalyticsWindow, VolumeSeries } from './types';
import { VolumeCharts } from './volume';

const ALL = '';
const TREND: Record<AnalyticsSummary['query_trend'], string> = { up: '▲ up', down: '▼ down', stable: '■ stable' };

/**
 * No baseline to compare against (contract §12's health signal): a "normal" signal never
 * comes with a change beyond ±50 % when there is one, and with none the service reports
 * +100 % for any traffic or 0 % for none. Either way there is no trend to show.
 */
const noHistory = (s: AnalyticsSummary) =>
  s.health_signal.status === 'normal' && (Math.abs(s.trend_percent) > 50 || s.total_queries_24h === 0);

function Totals({ s }: { s: AnalyticsSummary }) {
  return (
    <ul class="tiles" aria-label="Totals">
      <li class="tile">
        <span class="tile-figure">{s.total_queries_24h}</span>
        <span>queries, 24 h</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{s.total_queries_7d}</span>
        <span>queries, 7 days</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{s.total_queries_30d}</span>
        <span>queries, 30 days</span>
      </li>
      <li class="tile">
        {noHistory(s) ? (
          <span class="tile-figure">—</span>
        ) : (
          <span class="tile-figure">
            {TREND[s.query_trend]} {s.trend_percent > 0 ? '+' : ''}
            {s.trend_percent}%
          </span>
        )}
        <span>
          {noHistory(s) ? 'trend: no earlier week to compare with yet' : 'last 24 h against the 7-day daily average'}
        </span>
      </li>
      <li class="tile">
        <span class="tile-figure">{Math.round(s.error_rate * 1000) / 10}%</span>
        <span>error answers</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{s.avg_response_ms} ms</span>
        <span>average response time</span>
      </li>
    </ul>
  );
}

/**
 * The health banner (contract §12): a drop or spike beyond ±50 % is a warning, otherwise
 * information. The service's message says it all; without history nothing is called healthy.
 */
const HEADLINE = { normal: 'Query volume', drop: 'Query volume dropped', spike: 'Query volume spiked' } as const;
const Health = ({ s }: { s: AnalyticsSummary }) => (
  <Notice kind={s.health_signal.status === 'normal' ? 'info' : 'warning'}>
    <p>
      <strong>{noHistory(s) ? 'No trend yet' : HEADLINE[s.health_signal.status]}:</strong> {s.health_signal.message}.
    </p>
  </Notice>
);

export function AnalyticsScreen({ account }: ScreenProps) {
  const [domain, setDomain] = useState(ALL);
  const [window, setWindow] = useState<AnalyticsWindow>('24h');
  /** Bumped by Refresh: every request below depends on `query`, so all of them load again. */
  const [refreshes, setRefreshes] = useState(0);
  const domains = useResource(async () => {
    const [zones, hosts] = await Promise.all([api.get<{ zones: Zone[] }>('/zones'), api.get<DdnsHost[]>('/domains')]);
    return [...zones.zones.map((z) => z.name), ...hosts.map((h) => h.fqdn)].sort();
  });
  /** Query string of every analytics request: the domain filter plus the request's own parameters. */
  const query = useCallback(
    (extra: Record<string, string>) => {
      const q = new URLSearchParams(extra);
      if (domain !== ALL) q.set('domain', domain);
      const s = q.toString();
      return s ? `?${s}` : '';
    },
    [domain, refreshes],
  );
  const summary = useResource(
    () => api.get<AnalyticsSummary>(`/dns-analytics/summary${query({ window })}`),
    [query, window],
  );
  const volume = useResource(() => api.get<VolumeSeries>(`/dns-analytics/volume${query({ window })}`), [query, window]);
  return (
    <div class="stack">
      <section class="card filters" aria-label="Filters">
        <Loaded resource={domains}>
          {(names) => (
            <SelectField
              label="Domain"
              value={domain}
              onValue={setDomain}
              options={[{ value: ALL, label: 'All domains' }, ...names.map((n) => ({ value: n, label: n }))]}
            />
          )}
        </Loaded>
        <div class="field">
          <span class="field-label">Breakdown window</span>
          <Segmented label="Breakdown window" options={[...TIME_WINDOWS]} value={window} onValue={setWindow} />
        </div>
        <button type="button" class="button-secondary" onClick={() => setRefreshes((n) => n + 1)}>
          Refresh
        </button>
      </section>
      <Loaded resource={summary}>
        {(s) => (
          <>
            <Health s={s} />
            <Totals s={s} />
          </>
        )}
      </Loaded>
      <section class="card" aria-labelledby="volume">
        <h2 id="volume">Query volume</h2>
        <Loaded resource={volume}>{(v) => <VolumeCharts v={v} />}</Loaded>
      </section>
      <Loaded resource={summary}>{(s) => <Breakdowns s={s} />}</Loaded>
      <RecentQueries query={query} />
      <ExportCard account={account} query={query} />
    </div>
  );
}
