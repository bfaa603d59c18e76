import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import type { AuditEntry } from '../../api/types';
import type { ScreenDef, ScreenProps } from '../../app/screen';
import { dateTime } from '../../components/format';
import { ErrorNotice, Loading } from '../../components/notices';
import { useAction } from '../../components/resource';
import { DataTable } from '../../components/table';

const ACRONYMS: Record<string, string> = { Api: 'API', Totp: 'TOTP', Rrsets: 'RRsets', Ddns: 'DDNS', Dns: 'DNS' };

/** `ApiKeyCreated` → "API key created". */
const humanType = (t: string) =>
  t
    .split(/(?<=[a-z0-9])(?=[A-Z])/)
    .map((w, i) => ACRONYMS[w] ?? (i === 0 ? w : w.toLowerCase()))
    .join(' ');

/**
 * What the entry is about, in a few fields: names, types, plans. Ids and timestamps repeat
 * what the other columns say, and redacted secrets say nothing.
 */
function summary(data: Record<string, unknown>): string {
  const scalar = Object.entries(data ?? {}).filter(([, v]) => v !== null && typeof v !== 'object' && v !== '[redacted]');
  const telling = scalar.filter(([k]) => !k.endsWith('_id') && !k.endsWith('_at') && k !== 'at');
  return (telling.length ? telling : scalar)
    .slice(0, 4)
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${String(v)}`)
    .join(' · ');
}

function AuditScreen(_: ScreenProps) {
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const load = useAction(async (from?: string) => {
    const page = await api.get<{ data: AuditEntry[]; next_cursor: string | null }>(`/account/audit?limit=50${from ? `&cursor=${encodeURIComponent(from)}` : ''}`);
    setEntries((prev) => (from ? [...prev, ...page.data] : page.data));
    setCursor(page.next_cursor);
  });
  useEffect(() => {
    void load.run();
  }, []);
  return (
    <section class="card" aria-labelledby="audit-list">
      <h2 id="audit-list">Changes to your account, newest first</h2>
      <ErrorNotice error={load.error} onRetry={() => void load.run()} />
      {cursor === undefined && !load.error ? (
        <Loading />
      ) : (
        <DataTable
          caption="Audit log"
          rows={entries}
          rowKey={(e) => e.id}
          empty="Nothing recorded yet."
          columns={[
            { header: 'When', cell: (e) => dateTime(e.occurred_at) },
            { header: 'What', cell: (e) => humanType(e.type) },
            { header: 'Details', cell: (e) => <span class="details">{summary(e.data)}</span> },
            { header: 'By', cell: (e) => e.actor ?? '—' },
            { header: 'From', cell: (e) => e.source_ip ?? '—' },
          ]}
        />
      )}
      {cursor && (
        <button type="button" class="button-secondary" disabled={load.busy} onClick={() => void load.run(cursor)}>
          {load.busy ? 'Loading…' : 'Show older entries'}
        </button>
      )}
    </section>
  );
}

export const auditScreens: ScreenDef[] = [{ path: '/audit', title: 'Audit log', nav: { label: 'Audit log', order: 90 }, component: AuditScreen }];
