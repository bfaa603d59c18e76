import { useState } from 'preact/hooks';
import { api, request, seg } from '../../api/client';
import { Link } from '../../app/link';
import type { ScreenProps } from '../../app/screen';
import { dateTime, ms } from '../../components/format';
import { ErrorNotice, Loaded, Notice } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { DataTable } from '../../components/table';
import { WebhookForm } from './form';
import { statusText } from './list';
import { typesLabel, type Delivery, type Webhook } from './types';

const PAGE = 50;

/** One endpoint: its settings to edit, and its delivery log (one row per attempt, newest first) with redelivery. */
export function WebhookScreen({ params }: ScreenProps) {
  const id = params.id;
  const hook = useResource(() => api.get<Webhook>(`/webhooks/${seg(id)}`), [id]);
  const [pages, setPages] = useState<{ data: Delivery[]; next_cursor: string | null } | null>(null);
  const log = useResource(async () => {
    const first = await api.get<{ data: Delivery[]; next_cursor: string | null }>(
      `/webhooks/${seg(id)}/deliveries?limit=${PAGE}`,
    );
    setPages(first);
    return first;
  }, [id]);
  const [notice, setNotice] = useState<string | null>(null);
  const more = useAction(async () => {
    if (!pages?.next_cursor) return;
    const next = await api.get<{ data: Delivery[]; next_cursor: string | null }>(
      `/webhooks/${seg(id)}/deliveries?limit=${PAGE}&cursor=${seg(pages.next_cursor)}`,
    );
    setPages({ data: [...pages.data, ...next.data], next_cursor: next.next_cursor });
  });
  const save = useAction(async (fields: { url: string; event_types: string[]; description: string | null }) => {
    await request('PATCH', `/webhooks/${seg(id)}`, fields);
    setNotice('Saved.');
    await hook.reload();
  });
  const redeliver = useAction(async (d: Delivery) => {
    await api.post(`/webhooks/${seg(id)}/deliveries/${seg(d.id)}/redeliver`);
    setNotice(`Redelivery of ${d.event_type} queued.`);
  });
  return (
    <div class="stack">
      <p>
        <Link to="/webhooks">All webhooks</Link>
      </p>
      <Loaded resource={hook}>
        {(w) => (
          <section class="card" aria-labelledby="webhook-settings">
            <h2 id="webhook-settings">Settings</h2>
            <p>
              {statusText(w)} · {typesLabel(w.event_types)} · created {dateTime(w.created_at)}
            </p>
            <WebhookForm
              initial={w}
              label="Edit the webhook"
              submitLabel="Save"
              busyLabel="Saving…"
              busy={save.busy}
              error={save.error}
              onSubmit={(f) => void save.run(f)}
            />
          </section>
        )}
      </Loaded>
      <section class="card" aria-labelledby="webhook-deliveries">
        <h2 id="webhook-deliveries">Deliveries</h2>
        {notice && (
          <Notice kind="success">
            <p>{notice}</p>
          </Notice>
        )}
        <ErrorNotice error={redeliver.error ?? more.error} />
        <div class="button-row">
          <button type="button" class="button-secondary" onClick={() => void log.reload()}>
            Refresh
          </button>
        </div>
        <Loaded resource={log}>
          {() => (
            <>
              <DataTable
                caption="Delivery attempts, newest first"
                rows={pages?.data ?? []}
                rowKey={(d) => d.id}
                empty="Nothing delivered yet."
                columns={[
                  {
                    header: 'Attempted',
                    cell: (d) => (d.attempted_at ? dateTime(d.attempted_at) : `due ${dateTime(d.next_attempt_at)}`),
                  },
                  { header: 'Event', cell: (d) => d.event_type },
                  { header: 'Attempt', cell: (d) => d.attempt, numeric: true },
                  { header: 'Status', cell: (d) => d.status },
                  {
                    header: 'Response',
                    cell: (d) => (d.response_status === null ? '—' : d.response_status),
                    numeric: true,
                  },
                  { header: 'Time', cell: (d) => ms(d.duration_ms), numeric: true },
                  { header: 'Next attempt', cell: (d) => (d.status === 'failed' ? dateTime(d.next_attempt_at) : '—') },
                  {
                    header: 'Actions',
                    cell: (d) =>
                      d.status === 'pending' ? (
                        '—'
                      ) : (
                        <button
                          type="button"
                          class="button-secondary"
                          disabled={redeliver.busy}
                          onClick={() => void redeliver.run(d)}
                          aria-label={`Redeliver ${d.event_type} (attempt ${d.attempt})`}
                        >
                          Redeliver
                        </button>
                      ),
                  },
                ]}
              />
              {pages?.next_cursor && (
                <button type="button" class="button-secondary" disabled={more.busy} onClick={() => void more.run()}>
                  Show older attempts
                </button>
              )}
            </>
          )}
        </Loaded>
      </section>
    </div>
  );
}
