import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { dateTime } from '../../components/format';
import { Loaded } from '../../components/notices';
import { useResource } from '../../components/resource';
import { Segmented } from '../../components/segmented';
import { DataTable } from '../../components/table';
import type { RecentQuery } from './types';

const LIMITS = [10, 25, 50, 100].map((n) => ({ value: n, label: String(n) }));

/** The newest queries of the current month (the API keeps no older raw rows for this view). */
export function RecentQueries({ query }: { query: (extra: Record<string, string>) => string }) {
  const [limit, setLimit] = useState(25);
  const recent = useResource(
    () => api.get<{ queries: RecentQuery[] }>(`/dns-analytics/queries${query({ limit: String(limit) })}`),
    [limit, query],
  );
  return (
    <section class="card" aria-labelledby="recent">
      <h2 id="recent">Recent queries</h2>
      <div class="field">
        <span class="field-label">Rows to show</span>
        <Segmented label="Rows to show" options={LIMITS} value={limit} onValue={setLimit} />
      </div>
      <Loaded resource={recent}>
        {(d) => (
          <DataTable
            caption="Recent queries, newest first"
            rows={d.queries}
            rowKey={(q) => `${q.timestamp}-${q.qname}-${q.qtype}-${q.client_ip}`}
            empty="No queries this month yet."
            columns={[
              // On a phone: the name; time, type and answer; client and response (issue 27: compact
              // rows, not a card per query). The year is dropped there so the second line fits 390 px.
              { header: 'Time', cell: (q) => <QueryTime iso={q.timestamp} />, phone: 'bare' },
              { header: 'Name', cell: (q) => <code class="details">{q.qname}</code>, phone: 'title' },
              { header: 'Type', cell: (q) => q.qtype, phone: 'bare' },
              { header: 'Answer', cell: (q) => q.rcode, phone: 'bare' },
              {
                header: 'Client',
                cell: (q) => `${q.client_ip} (${q.country_code})`,
                phone: 'bare',
                phoneNewLine: true,
              },
              { header: 'Response', cell: (q) => `${q.response_ms} ms`, numeric: true, phone: 'bare' },
            ]}
          />
        )}
      </Loaded>
    </section>
  );
}

/** The query's time; the year (the view holds this month only) is hidden on a phone. */
function QueryTime({ iso }: { iso: string }) {
  const text = dateTime(iso);
  return (
    <span class="nowrap">
      <span class="phone-hidden">{text.slice(0, 5)}</span>
      {text.slice(5)}
    </span>
  );
}
