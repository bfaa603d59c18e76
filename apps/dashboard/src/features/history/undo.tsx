import { api } from '../../api/client';
import { ErrorNotice, Notice } from '../../components/notices';
import { useAction } from '../../components/resource';
import type { HistoryPage } from './types';

/**
 * Offered after an edit that removed records: brings the zone back to the instant just
 * before the latest change (its time as the server recorded it, so the browser's clock
 * plays no part). The undo is itself a change in the zone's history, undone the same way.
 */
export function UndoLastChange({
  path,
  onUndone,
  onDismiss,
}: {
  path: string;
  onUndone: () => Promise<void>;
  onDismiss: () => void;
}) {
  const undo = useAction(async () => {
    const { data } = await api.get<HistoryPage>(`${path}/history?limit=1`);
    if (!data[0]) return;
    await api.post(`${path}/restore`, { as_of: new Date(Date.parse(data[0].occurred_at) - 1).toISOString() });
    await onUndone();
  });
  return (
    <Notice kind="info">
      <p>Records removed.</p>
      <ErrorNotice error={undo.error} />
      <span class="button-row">
        <button type="button" disabled={undo.busy} onClick={() => void undo.run()}>
          {undo.busy ? 'Undoing…' : 'Undo'}
        </button>
        <button type="button" class="button-secondary" onClick={onDismiss}>
          Dismiss
        </button>
      </span>
    </Notice>
  );
}
