import { Loaded, Notice } from '../../components/notices';
import type { Resource } from '../../components/resource';
import { DataTable } from '../../components/table';
import type { EmailAuthSettings, LiveRecords } from './types';

/** The records the settings generate, and whether the world's DNS answers each yet. */
export function GeneratedRecords({ settings, live }: { settings: EmailAuthSettings; live: Resource<LiveRecords> }) {
  return (
    <>
      {settings.warnings.map((w) => (
        <Notice key={w} kind="warning">
          {w}
        </Notice>
      ))}
      <Loaded resource={live} label="Asking DNS whether the records are live…">
        {(l) => (
          <DataTable
            caption="Generated records"
            rows={l.records}
            rowKey={(r) => `${r.name} ${r.value}`}
            empty="No records yet: save a setting below."
            columns={[
              { header: 'Name', cell: (r) => <code class="details">{r.name}</code> },
              { header: 'Type', cell: (r) => r.type },
              { header: 'Value', cell: (r) => <code class="details">{r.value}</code> },
              {
                header: 'Live in DNS',
                cell: (r) =>
                  r.live ? (
                    <span class="status status-ok">Live</span>
                  ) : (
                    <span
                      class="status status-warn"
                      title={r.found.length ? `DNS has: ${r.found.join(' | ')}` : (r.error ?? undefined)}
                    >
                      Not yet{r.found.length ? ' (differs)' : ''}
                    </span>
                  ),
              },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}
