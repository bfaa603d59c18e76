import { useMemo } from 'preact/hooks';
import { TimeChart } from '../../components/chart';
import type { VolumeSeries } from './types';

/** Query volume and errors per hour or day, from GET /dns-analytics/volume. */
export function VolumeCharts({ v }: { v: VolumeSeries }) {
  const times = useMemo(() => v.points.map((p) => Date.parse(p.at) / 1000), [v]);
  const queries = useMemo(() => ({ label: 'Queries', unit: 'queries', values: v.points.map((p) => p.queries) }), [v]);
  const errors = useMemo(() => ({ label: 'Errors', unit: 'queries', values: v.points.map((p) => p.errors) }), [v]);
  const hourly = v.bucket_seconds === 3600;
  const per = hourly ? 'per hour' : 'per day';
  const tickFormat = hourly ? '{HH}:{mm}' : '{MM}-{DD}';
  return (
    <div class="charts">
      <TimeChart title={`Queries ${per}`} times={times} series={queries} tickFormat={tickFormat} />
      <TimeChart
        title={`Error answers (NXDOMAIN, SERVFAIL, REFUSED) ${per}`}
        times={times}
        series={errors}
        tickFormat={tickFormat}
      />
    </div>
  );
}
