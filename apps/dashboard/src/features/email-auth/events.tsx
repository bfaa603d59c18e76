import { api } from '../../api/client';
import { dateTime } from '../../components/format';
import { Loaded } from '../../components/notices';
import { useLive } from '../../components/live';
import { useResource } from '../../components/resource';
import { DataTable } from '../../components/table';
import type { ZoneEvent } from './types';

/** "DmarcStageAdvanced" → "Dmarc stage advanced". */
const words = (type: string) =>
  type.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^(\w)(.*)$/, (_m, a: string, b: string) => a + b.toLowerCase());

const details = (data: Record<string, unknown>) =>
  Object.entries(data)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join('; ');

/** `saves` counts the screen's saves: each one loads the log again (the save's answer comes after its events are readable). */
export function ZoneEventLog({ base, saves }: { base: string; saves: number }) {
  const events = useResource(() => api.get<{ events: ZoneEvent[] }>(`${base}/events?limit=50`), [base, saves]);
  // Settings saved elsewhere (another tab, the API), reports and alerts: the log follows without a reload.
  useLive(['email_auth'], events.reload);
  return (
    <Loaded resource={events}>
      {(d) => (
        <DataTable
          caption="Email authentication events, newest first"
          rows={d.events}
          rowKey={(e) => `${e.occurred_at}-${e.type}-${JSON.stringify(e.data)}`}
          empty="Nothing has happened for this zone yet."
          columns={[
            { header: 'When', cell: (e) => dateTime(e.occurred_at) },
            { header: 'Event', cell: (e) => words(e.type) },
            { header: 'By', cell: (e) => e.actor ?? '—' },
            { header: 'Details', cell: (e) => <span class="details">{details(e.data)}</span> },
          ]}
        />
      )}
    </Loaded>
  );
}
