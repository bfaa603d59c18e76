import type { ComponentChildren } from 'preact';

export interface Column<T> {
  header: string;
  /** `index` is the row's place in `rows` (a row may read its neighbours). */
  cell: (row: T, index: number) => ComponentChildren;
  /** Right-aligned numbers. */
  numeric?: boolean;
  /**
   * On a phone, where rows become compact list items: `title` makes the cell the item's
   * first line (else the first cell is), `bare` drops its label (values that say what they
   * are: a time, an address, "NXDOMAIN").
   */
  phone?: 'title' | 'bare';
  /**
   * On a phone, this cell and those after it start a new line, so that every item has the
   * same lines whatever its values' widths (a row wrapping by width got a fourth line).
   */
  phoneNewLine?: boolean;
}

/**
 * A data table with a caption (its accessible name); wide tables scroll inside their own
 * focusable region on narrow screens instead of widening the page.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
  empty: ComponentChildren;
}) {
  if (rows.length === 0) return <p class="empty">{empty}</p>;
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.numeric ? 'num' : undefined} key={c.header}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td
                  class={
                    [c.numeric && 'num', c.phone && `cell-${c.phone}`, c.phoneNewLine && 'cell-new-line']
                      .filter(Boolean)
                      .join(' ') || undefined
                  }
                  key={c.header}
                  data-label={c.header}
                >
                  {c.cell(row, i)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
