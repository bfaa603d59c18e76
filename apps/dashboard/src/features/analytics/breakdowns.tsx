import type { ComponentChildren } from 'preact';
import { DataTable } from '../../components/table';
import type { AnalyticsSummary } from './types';

const share = (n: number, total: number) => (total === 0 ? '0%' : `${Math.round((n / total) * 1000) / 10}%`);

/** A count with a bar showing its share of the largest row (the figure itself is the text). */
const Bar = ({ n, max }: { n: number; max: number }) => (
  <span class="bar-cell">
    <span class="bar-track" aria-hidden="true">
      <span class="bar" style={{ width: `${max === 0 ? 0 : Math.max(2, Math.round((n / max) * 100))}%` }} />
    </span>
    <span class="bar-figure">{n}</span>
  </span>
);

function Ranked<T>({
  id,
  title,
  caption,
  rows,
  rowKey,
  name,
  count,
  empty,
}: {
  id: string;
  title: string;
  caption: string;
  rows: T[];
  rowKey: (r: T) => string;
  name: (r: T) => ComponentChildren;
  count: (r: T) => number;
  empty: string;
}) {
  const max = Math.max(0, ...rows.map(count));
  const total = rows.reduce((n, r) => n + count(r), 0);
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <DataTable
        caption={caption}
        rows={rows}
        rowKey={rowKey}
        empty={empty}
        columns={[
          { header: caption.split(' by ')[0], cell: name },
          { header: 'Queries', cell: (r) => <Bar n={count(r)} max={max} />, numeric: true },
          { header: 'Share', cell: (r) => share(count(r), total), numeric: true },
        ]}
      />
    </section>
  );
}

export function Breakdowns({ s }: { s: AnalyticsSummary }) {
  const codes = Object.entries(s.response_codes).map(([code, n]) => ({ code, n }));
  const p = s.protocol_posture;
  return (
    <div class="grid-2">
      <Ranked
        id="rcodes"
        title="Response codes"
        caption="Response code by queries"
        rows={codes}
        rowKey={(r) => r.code}
        name={(r) => <code>{r.code}</code>}
        count={(r) => r.n}
        empty="No queries in this window."
      />
      <Ranked
        id="qtypes"
        title="Query types"
        caption="Type by queries"
        rows={s.query_types}
        rowKey={(r) => r.type}
        name={(r) => <code>{r.type}</code>}
        count={(r) => r.query_count}
        empty="No queries in this window."
      />
      <section class="card" aria-labelledby="posture">
        <h2 id="posture">Protocol posture</h2>
        <dl class="facts">
          <dt>DNSSEC requested (DO bit)</dt>
          <dd>{p.dnssec_pct}%</dd>
          <dt>From IPv6 clients</dt>
          <dd>{p.ipv6_pct}%</dd>
          <dt>With EDNS(0)</dt>
          <dd>{p.edns_pct}%</dd>
          <dt>Over TCP</dt>
          <dd>{p.tcp_fallback_pct}%</dd>
          <dt>Response time, 95th percentile</dt>
          <dd>{p.p95_ms} ms</dd>
          <dt>Response time, 99th percentile</dt>
          <dd>{p.p99_ms} ms</dd>
        </dl>
      </section>
      <Ranked
        id="countries"
        title="Top countries"
        caption="Country by queries"
        rows={s.top_countries}
        rowKey={(r) => r.country_code}
        name={(r) =>
          r.country_code === 'Unknown'
            ? 'Unknown (private or unlisted address)'
            : `${r.country_name} (${r.country_code})`
        }
        count={(r) => r.query_count}
        empty="No queries in this window."
      />
      <Ranked
        id="asns"
        title="Networks"
        caption="Network (ASN) by queries"
        rows={s.top_asns}
        rowKey={(r) => r.asn}
        name={(r) => (r.asn === 'Unknown' ? 'Unknown' : `${r.organization} (${r.asn})`)}
        count={(r) => r.query_count}
        empty="No queries in this window."
      />
      <Ranked
        id="nxdomain"
        title="Top NXDOMAIN names"
        caption="Name by queries"
        rows={s.top_nxdomain}
        rowKey={(r) => r.qname}
        name={(r) => <code class="details">{r.qname}</code>}
        count={(r) => r.query_count}
        empty="No queries for names that do not exist."
      />
    </div>
  );
}
