import { useState } from 'preact/hooks';
import type { Account } from '../../api/types';
import { PLAN_NAMES } from '../../app/screen';
import { SelectField, TextField } from '../../components/forms';
import { Notice } from '../../components/notices';

const DAY = 86_400_000;
const MAX_DAYS = 90;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * The query log as a CSV or JSON file for a date range (Elite). The file streams from the
 * service straight into the browser's download (a plain link: the session cookie goes with
 * it, nothing is buffered in the page).
 */
export function ExportCard({ account, query }: { account: Account; query: (extra: Record<string, string>) => string }) {
  const today = day(Date.now());
  const [start, setStart] = useState(day(Date.now() - 6 * DAY));
  const [end, setEnd] = useState(today);
  const [format, setFormat] = useState<'csv' | 'json'>('csv');
  const span = (Date.parse(end) - Date.parse(start)) / DAY + 1;
  const problem =
    !start || !end
      ? 'Choose both dates.'
      : span < 1
        ? 'The end date is before the start date.'
        : span > MAX_DAYS
          ? `At most ${MAX_DAYS} days at a time.`
          : null;
  return (
    <section class="card" aria-labelledby="export">
      <h2 id="export">Export the query log</h2>
      {account.plan !== 'elite' ? (
        <p class="plan-note">
          Data export needs the Elite plan; you are on {PLAN_NAMES[account.plan]}. Plans are changed by the service's
          operators.
        </p>
      ) : (
        <div class="form">
          <div class="form-grid form-grid-3">
            <TextField
              label="From (UTC day)"
              name="start"
              type="date"
              value={start}
              onValue={setStart}
              max={undefined}
              required
            />
            <TextField label="To (UTC day, included)" name="end" type="date" value={end} onValue={setEnd} required />
            <SelectField
              label="Format"
              value={format}
              onValue={setFormat}
              options={[
                { value: 'csv', label: 'CSV' },
                { value: 'json', label: 'JSON' },
              ]}
            />
          </div>
          {problem ? (
            <Notice kind="warning">{problem}</Notice>
          ) : (
            <p>
              <a class="button-link" href={`/dns-analytics/export${query({ format, start, end })}`} download>
                Download {format.toUpperCase()} ({span} {span === 1 ? 'day' : 'days'})
              </a>
            </p>
          )}
        </div>
      )}
    </section>
  );
}
