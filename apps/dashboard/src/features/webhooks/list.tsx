import { useState } from 'preact/hooks';
import { api, request, seg } from '../../api/client';
import { Link } from '../../app/link';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { ErrorNotice, Loaded, Notice } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { CopyBlock } from '../../components/secret';
import { DataTable } from '../../components/table';
import { WebhookForm } from './form';
import { typesLabel, type Webhook } from './types';

export const statusText = (w: Webhook) =>
  w.enabled ? 'Enabled' : `Disabled${w.disabled_reason ? `: ${w.disabled_reason}` : ''}`;

/** The account's endpoints: register one (its signing secret shown once), switch, test or delete them. */
export function WebhooksScreen() {
  const hooks = useResource(() => api.get<{ webhooks: Webhook[] }>('/webhooks'));
  const [created, setCreated] = useState<Webhook | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [tested, setTested] = useState<string | null>(null);
  const create = useAction(async (fields: { url: string; event_types: string[]; description: string | null }) => {
    setCreated(await api.post<Webhook>('/webhooks', fields));
    setFormKey((k) => k + 1);
    await hooks.reload();
  });
  const act = useAction(async (what: 'test' | 'enable' | 'disable' | 'delete', w: Webhook) => {
    setTested(null);
    if (what === 'test') {
      await api.post(`/webhooks/${seg(w.id)}/test`);
      setTested(w.url);
    } else if (what === 'delete') await api.del(`/webhooks/${seg(w.id)}`);
    else await request('PATCH', `/webhooks/${seg(w.id)}`, { enabled: what === 'enable' });
    await hooks.reload();
  });
  return (
    <div class="stack">
      {created?.secret && (
        <section class="card" aria-labelledby="new-webhook">
          <h2 id="new-webhook">Webhook created</h2>
          <Notice kind="warning">
            <p>
              This is the only time the signing secret is shown. Copy it now; your receiver checks each delivery’s
              signature with it.
            </p>
          </Notice>
          <CopyBlock label="Signing secret" text={created.secret} />
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </section>
      )}
      <section class="card" aria-labelledby="create-webhook">
        <h2 id="create-webhook">New webhook</h2>
        <WebhookForm
          key={formKey}
          label="Register a webhook"
          submitLabel="Create webhook"
          busyLabel="Creating…"
          busy={create.busy}
          error={create.error}
          onSubmit={(f) => void create.run(f)}
        />
      </section>
      <section class="card" aria-labelledby="webhook-list">
        <h2 id="webhook-list">Webhooks</h2>
        <p class="hint">
          Deliveries are signed (Standard Webhooks), retried with back-off for at least a day, and an endpoint failing
          for 5 days is disabled.
        </p>
        <ErrorNotice error={act.error} />
        {tested && (
          <Notice kind="success">
            <p>Test event queued for {tested}.</p>
          </Notice>
        )}
        <Loaded resource={hooks}>
          {(d) => (
            <DataTable
              caption="Webhook endpoints"
              rows={d.webhooks}
              rowKey={(w) => w.id}
              empty="No webhooks yet."
              columns={[
                {
                  header: 'Endpoint',
                  cell: (w) => (
                    <Link to={`/webhooks/${w.id}`}>{w.description ? `${w.description} (${w.url})` : w.url}</Link>
                  ),
                },
                { header: 'Events', cell: (w) => typesLabel(w.event_types) },
                { header: 'Status', cell: (w) => statusText(w) },
                { header: 'Created', cell: (w) => dateTime(w.created_at) },
                {
                  header: 'Actions',
                  cell: (w) => (
                    <div class="button-row">
                      <button
                        type="button"
                        class="button-secondary"
                        disabled={!w.enabled || act.busy}
                        onClick={() => void act.run('test', w)}
                        aria-label={`Send test to ${w.url}`}
                      >
                        Send test
                      </button>
                      <button
                        type="button"
                        class="button-secondary"
                        disabled={act.busy}
                        onClick={() => void act.run(w.enabled ? 'disable' : 'enable', w)}
                        aria-label={`${w.enabled ? 'Disable' : 'Enable'} ${w.url}`}
                      >
                        {w.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <ConfirmButton
                        label="Delete"
                        confirmLabel={`Delete webhook ${w.url}`}
                        busy={act.busy}
                        onConfirm={() => void act.run('delete', w)}
                      />
                    </div>
                  ),
                },
              ]}
            />
          )}
        </Loaded>
      </section>
    </div>
  );
}
