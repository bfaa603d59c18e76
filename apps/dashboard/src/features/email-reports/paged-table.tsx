import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import { ErrorNotice, Loading } from '../../components/notices';
import { useAction } from '../../components/resource';
import { DataTable, type Column } from '../../components/table';
import type { Page } from './types';

/**
 * A table over a `data` + `next_cursor` list: the first page on load, older entries on
 * demand. Reloads from the start when `path` changes (another zone or window).
 */
export function PagedTable<T, B = Page<T>>({
  path,
  caption,
  columns,
  rowKey,
  empty,
  more,
  pageOf = (body) => body as unknown as Page<T>,
}: {
  path: string;
  caption: string;
  columns: Column<T>[];
  rowKey: (row: T) => string | number;
  empty: string;
  more: string;
  /** Where the page is in the body (a report's rows are nested in the report). */
  pageOf?: (body: B) => Page<T>;
}) {
  const [rows, setRows] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const load = useAction(async (from?: string) => {
    const page = pageOf(
      await api.get<B>(
        `${path}${path.includes('?') ? '&' : '?'}limit=25${from ? `&cursor=${encodeURIComponent(from)}` : ''}`,
      ),
    );
    setRows((prev) => (from ? [...prev, ...page.data] : page.data));
    setCursor(page.next_cursor);
  });
  useEffect(() => {
    setCursor(undefined);
    void load.run();
  }, [path]);
  return (
    <>
      <ErrorNotice error={load.error} onRetry={() => void load.run()} />
      {cursor === undefined && !load.error ? (
        <Loading />
      ) : (
        <DataTable caption={caption} rows={rows} rowKey={rowKey} empty={empty} columns={columns} />
      )}
      {cursor && (
        <button type="button" class="button-secondary" disabled={load.busy} onClick={() => void load.run(cursor)}>
          {load.busy ? 'Loading…' : more}
        </button>
      )}
    </>
  );
}
