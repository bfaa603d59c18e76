import { useEffect, useRef, useState } from 'preact/hooks';
import type UPlotChart from 'uplot';
import { Loading } from './notices';

export interface Series {
  label: string;
  /** Unit shown on the axis and in values, e.g. "%" or "ms". */
  unit: string;
  values: (number | null)[];
}

/**
 * A time-series chart (uPlot, loaded on demand so it is not part of the first load). The
 * axes carry units; a visually hidden table gives the same figures to screen readers.
 */
export function TimeChart({
  title,
  times,
  series,
  yRange,
  tickFormat,
  empty = 'No checks in this window yet.',
}: {
  title: string;
  times: number[];
  series: Series;
  yRange?: [number, number];
  /** Said when no value is there to draw (the axes still show the window). */
  empty?: string;
  /** uPlot date template of the time axis ticks, e.g. `{HH}:{mm}` or `{MM}-{DD}` (UTC). */
  tickFormat: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<UPlotChart | null>(null);
  // Read by the scale range at every redraw: new points (a reload, a live notice) only set
  // the data of the chart that is there, so the chart never vanishes while it is redrawn.
  const latest = useRef(times);
  latest.current = times;
  const [ready, setReady] = useState(false);
  const noValues = series.values.every((v) => v == null);
  const [yMin, yMax] = yRange ?? [];
  useEffect(() => {
    let drawn: { destroy(): void; setSize(s: { width: number; height: number }): void } | null = null;
    let observer: ResizeObserver | null = null;
    let cancelled = false;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([{ default: UPlot }]) => {
      if (cancelled || !host.current) return;
      const width = Math.max(240, host.current.clientWidth);
      const tick = UPlot.fmtDate(tickFormat);
      const fmt = (v: number | null) => (v == null ? '–' : `${v} ${series.unit}`);
      // The x axis is the window itself (first to last bucket), not the span of the points
      // with values: charts of one window line up, an empty series included.
      const xRange = (_u: unknown, min: number, max: number): [number, number] => {
        const t = latest.current;
        return t.length ? [t[0], t[t.length - 1]] : [min, max];
      };
      const showXRange = (u: { root: HTMLElement; scales: Record<string, { min?: number; max?: number }> }) =>
        u.root.parentElement?.setAttribute('data-x-range', `${u.scales.x.min}-${u.scales.x.max}`);
      const made = new UPlot(
        {
          width,
          height: 220,
          title: undefined,
          scales: {
            x: { time: true, range: xRange },
            y: yMin != null && yMax != null ? { range: [yMin, yMax] } : noValues ? { range: [0, 1] } : {},
          },
          axes: [
            {
              label: 'Time (UTC)',
              stroke: '#374151',
              grid: { stroke: '#e5e7eb' },
              values: (_u, ticks) => ticks.map((t) => tick(UPlot.tzDate(new Date(t * 1000), 'Etc/UTC'))),
            },
            { label: `${series.label} (${series.unit})`, stroke: '#374151', grid: { stroke: '#e5e7eb' }, size: 60 },
          ],
          series: [
            {},
            {
              label: series.label,
              stroke: '#1d4ed8',
              width: 2,
              fill: 'rgba(29,78,216,0.08)',
              points: { show: true },
              value: (_u, v) => fmt(v),
              spanGaps: false,
            },
          ],
          legend: { show: true },
          // Read by the browser tests: the range the x axis was drawn with.
          hooks: { ready: [showXRange], setScale: [(u, key) => key === 'x' && showXRange(u)] },
          tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        },
        [latest.current, series.values],
        host.current,
      );
      drawn = made;
      plot.current = made;
      setReady(true);
      observer = new ResizeObserver(
        () => host.current && drawn?.setSize({ width: Math.max(240, host.current.clientWidth), height: 220 }),
      );
      observer.observe(host.current);
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      drawn?.destroy();
      plot.current = null;
    };
    // Built again only when what the chart is changes; new figures go through setData below.
  }, [tickFormat, yMin, yMax, series.label, series.unit, noValues]);
  useEffect(() => plot.current?.setData([times, series.values] as UPlotChart.AlignedData), [times, series.values]);
  const withData = series.values.filter((v) => v != null).length;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {!ready && <Loading label="Drawing the chart…" />}
      <div ref={host} class="chart-canvas" aria-hidden="true" />
      {withData === 0 && <p class="hint">{empty}</p>}
      {/* Wrapped: a table box ignores the 1px width and would widen the page. */}
      <div class="visually-hidden">
        <table class="chart-data">
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Time (UTC)</th>
              <th scope="col">
                {series.label} ({series.unit})
              </th>
            </tr>
          </thead>
          <tbody>
            {times.map((t, i) =>
              series.values[i] == null ? null : (
                <tr key={t}>
                  <td>{new Date(t * 1000).toISOString()}</td>
                  <td>{series.values[i]}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
