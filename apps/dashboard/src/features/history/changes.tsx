import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { ErrorNotice, Loading, Notice } from '../../components/notices';
import { useAction } from '../../components/resource';
import { DataTable } from '../../components/table';
import { changeLabel, isRecordChange, recordDiff } from './diff';
import type { FieldChange, HistoryChange, HistoryPage, RecordChange, SettingChange } from './types';

const Values = ({ values, kind }: { values: string[]; kind: 'removed' | 'added' }) => (
  <>
    {values.map((v) =>
      kind === 'removed' ? (
        <del key={`-${v}`} class="diff-line">
          <span class="visually-hidden">removed </span>− <code>{v}</code>
        </del>
      ) : (
        <ins key={`+${v}`} class="diff-line">
          <span class="visually-hidden">added </span>+ <code>{v}</code>
        </ins>
      ),
    )}
  </>
);

function RecordDiff({ change }: { change: RecordChange }) {
  const { removed, added, ttl } = recordDiff(change);
  return (
    <li>
      <strong>
        {change.subname || '@'} {change.type}
      </strong>
      {change.after === null ? ' (removed)' : change.before === null ? ' (new)' : ''}
      <Values values={removed} kind="removed" />
      <Values values={added} kind="added" />
      {ttl && <span class="diff-line">{ttl}</span>}
    </li>
  );
}

const FIELD_LABELS: Record<string, string> = { ttl: 'TTL', ipv4: 'IPv4', ipv6: 'IPv6' };
const shown = (v: unknown) =>
  v === null || v === undefined ? 'none' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** A host's address or TTL, or a setting's field (API keys, certificates, email authentication). */
const FieldDiff = ({ change }: { change: FieldChange | SettingChange }) => (
  <li>
    <strong>{FIELD_LABELS[change.field] ?? change.field}</strong>: <code>{shown(change.before)}</code> →{' '}
    <code>{shown(change.after)}</code>
  </li>
);

/** The diff of one change, record by record (zones) or field by field (hosts). */
export const ChangeDiff = ({ change }: { change: HistoryChange }) =>
  change.changes.length === 0 ? (
    <span class="hint">No record changed</span>
  ) : (
    <ul class="plain diff">
      {change.changes.map((c) =>
        isRecordChange(c) ? (
          <RecordDiff key={`${c.subname}/${c.type}`} change={c} />
        ) : (
          <FieldDiff key={c.field} change={c} />
        ),
      )}
    </ul>
  );

const who = (c: HistoryChange) =>
  c.actor.type === 'system'
    ? 'The service'
    : `${c.actor.name ?? c.actor.id ?? ''} (${c.actor.type === 'api_key' ? 'API key' : c.actor.type === 'operator' ? 'operator' : 'user'})`;

/**
 * A zone's or host's changes, newest first, 50 at a time, each with its diff and a button that
 * brings the records (or addresses) back to how they were right after it.
 */
export function HistoryList({
  path,
  subject,
  restorable,
  record,
}: {
  path: string;
  subject: string;
  restorable: boolean;
  /** One RRset's history (`{subname, type}`): only the changes that touched it, and only its diff. */
  record?: { subname: string; type: string };
}) {
  const [changes, setChanges] = useState<HistoryChange[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [restored, setRestored] = useState<string | null>(null);
  const load = useAction(async (from?: string) => {
    const page = await api.get<HistoryPage>(
      `${path}/history?limit=50${from ? `&cursor=${encodeURIComponent(from)}` : ''}`,
    );
    setChanges((prev) => (from ? [...prev, ...page.data] : page.data));
    setCursor(page.next_cursor);
  });
  const restore = useAction(async (change: HistoryChange) => {
    await api.post(`${path}/restore`, { as_of: change.occurred_at });
    setRestored(change.occurred_at);
    await load.run();
  });
  useEffect(() => {
    void load.run();
  }, [path]);
  if (cursor === undefined && !load.error) return <Loading />;
  const only = (c: HistoryChange): HistoryChange =>
    record === undefined
      ? c
      : {
          ...c,
          changes: c.changes.filter((d) => isRecordChange(d) && d.subname === record.subname && d.type === record.type),
        };
  const rows = changes.map(only).filter((c) => record === undefined || c.changes.length > 0);
  return (
    <>
      <ErrorNotice error={load.error ?? restore.error} onRetry={load.error ? () => void load.run() : undefined} />
      {restored && (
        <Notice kind="success">
          Brought back to how it was at {dateTime(restored)}. The restore is in the list below, and can be undone the
          same way.
        </Notice>
      )}
      <DataTable
        caption={`Changes of ${subject}`}
        rows={rows}
        rowKey={(c) => c.id}
        empty="No changes yet."
        columns={[
          { header: 'When', cell: (c) => dateTime(c.occurred_at) },
          {
            header: 'Change',
            cell: (c) => (
              <>
                {changeLabel(c.type)}
                {c.restored_from && <span class="hint"> to {dateTime(c.restored_from)}</span>}
              </>
            ),
          },
          {
            header: 'By',
            cell: (c) => (
              <>
                {who(c)}
                {c.source_ip && <span class="hint"> from {c.source_ip}</span>}
              </>
            ),
          },
          { header: 'What changed', cell: (c) => <ChangeDiff change={c} /> },
          ...(restorable
            ? [
                {
                  header: 'Restore',
                  // The newest change is how things are now; a deletion leaves nothing to restore.
                  cell: (c: HistoryChange) =>
                    c.type.endsWith('_deleted') || c.id === changes[0]?.id ? null : (
                      <ConfirmButton
                        label="Restore to here"
                        confirmLabel={`Restore to ${dateTime(c.occurred_at)}`}
                        busy={restore.busy}
                        onConfirm={() => void restore.run(c)}
                      />
                    ),
                },
              ]
            : []),
        ]}
      />
      {cursor && (
        <button type="button" class="button-secondary" disabled={load.busy} onClick={() => void load.run(cursor)}>
          {load.busy ? 'Loading…' : 'Older changes'}
        </button>
      )}
    </>
  );
}
