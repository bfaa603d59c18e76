import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { Account, ApiKey } from '../../api/types';
import type { PlanRequirement, ScreenDef, ScreenProps } from '../../app/screen';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { Checkbox, Form, SelectField, TextField } from '../../components/forms';
import { ErrorNotice, Loaded, Notice } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { CopyBlock } from '../../components/secret';
import { DataTable } from '../../components/table';

const accountKeysAllowed = (a: Account) => a.plan === 'pro' || a.plan === 'elite';
const emailAuthKeysAllowed = (a: Account) => a.email_auth.tier === 'enterprise';

/** Account keys need Pro or Elite; email-auth keys the Enterprise tier on any plan (contract §3). */
const KEYS_REQUIREMENT: PlanRequirement = {
  allows: (a) => accountKeysAllowed(a) || emailAuthKeysAllowed(a),
  badge: 'Pro',
  message:
    'API keys need the Pro or Elite plan (or, for read-only email-authentication keys, the Email Authentication Enterprise tier).',
};

type Access = ApiKey['access'];

function CreateKey({ account, onCreated }: { account: Account; onCreated: (k: ApiKey) => void }) {
  const [name, setName] = useState('');
  const [access, setAccess] = useState<Access>(accountKeysAllowed(account) ? 'account' : 'email_auth:read');
  const [domains, setDomains] = useState<string[]>([]);
  const [subjects, setSubjects] = useState(false);
  const [days, setDays] = useState('365');
  const choices = [
    ...(accountKeysAllowed(account)
      ? [{ value: 'account' as Access, label: 'Account (full management API and DDNS updates)' }]
      : []),
    ...(emailAuthKeysAllowed(account)
      ? [{ value: 'email_auth:read' as Access, label: 'Email authentication, read only' }]
      : []),
  ];
  const create = useAction(async () => {
    const body: Record<string, unknown> = { name };
    if (access !== 'account')
      Object.assign(body, { access, domains, failure_report_subjects: subjects, expires_in_days: Number(days) });
    onCreated(await api.post<ApiKey>('/api-keys/', body));
    setName('');
  });
  return (
    <Form
      onSubmit={() => void create.run()}
      busy={create.busy}
      error={create.error}
      submitLabel="Create key"
      busyLabel="Creating…"
      label="Create an API key"
    >
      <TextField
        label="Name"
        name="name"
        value={name}
        onValue={setName}
        required
        maxLength={255}
        hint="What the key is for, e.g. “home router”."
      />
      {choices.length > 1 && <SelectField label="Access" value={access} onValue={setAccess} options={choices} />}
      {access === 'email_auth:read' && (
        <fieldset>
          <legend>Email-authentication key settings</legend>
          {account.email_auth.domains.length === 0 ? (
            <p class="hint">The key will read every zone of your Email Authentication subscription.</p>
          ) : (
            <>
              {account.email_auth.domains.map((d) => (
                <Checkbox
                  key={d}
                  label={d}
                  checked={domains.includes(d)}
                  onChecked={(on) => setDomains(on ? [...domains, d] : domains.filter((x) => x !== d))}
                />
              ))}
              <p class="hint">No zone ticked: all zones of the subscription.</p>
            </>
          )}
          <Checkbox label="Show subjects of failure reports" checked={subjects} onChecked={setSubjects} />
          <TextField
            label="Expires after (days)"
            type="number"
            min={1}
            max={1095}
            value={days}
            onValue={setDays}
            required
          />
        </fieldset>
      )}
    </Form>
  );
}

function KeysScreen({ account }: ScreenProps) {
  const keys = useResource(() => api.get<{ keys: ApiKey[] }>('/api-keys/'));
  const [created, setCreated] = useState<ApiKey | null>(null);
  const deactivate = useAction(async (id: string) => {
    await api.del(`/api-keys/${seg(id)}`);
    await keys.reload();
  });
  return (
    <div class="stack">
      {!accountKeysAllowed(account) && (
        <Notice kind="info">
          <p>Account keys (management API and DDNS updates) need the Pro or Elite plan.</p>
        </Notice>
      )}
      {created && (
        <section class="card" aria-labelledby="new-key">
          <h2 id="new-key">Key “{created.name}” created</h2>
          <Notice kind="warning">
            <p>This is the only time the key is shown. Copy it now; the service keeps only a hash.</p>
          </Notice>
          <CopyBlock label="API key" text={created.key!} />
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </section>
      )}
      <section class="card" aria-labelledby="create-key">
        <h2 id="create-key">New key</h2>
        <CreateKey
          account={account}
          onCreated={(k) => {
            setCreated(k);
            void keys.reload();
          }}
        />
      </section>
      <section class="card" aria-labelledby="active-keys">
        <h2 id="active-keys">Active keys</h2>
        <p class="hint">At most 5 active keys of both kinds together.</p>
        <ErrorNotice error={deactivate.error} />
        <Loaded resource={keys}>
          {(d) => (
            <DataTable
              caption="Active API keys"
              rows={d.keys}
              rowKey={(k) => k.id}
              empty="No active keys."
              columns={[
                { header: 'Name', cell: (k) => k.name },
                {
                  header: 'Access',
                  cell: (k) =>
                    k.access === 'account'
                      ? 'Account'
                      : `Email auth (read)${k.domains?.length ? `: ${k.domains.join(', ')}` : ''}`,
                },
                { header: 'Created', cell: (k) => dateTime(k.created_at) },
                { header: 'Last used', cell: (k) => dateTime(k.last_used_at) },
                { header: 'Expires', cell: (k) => dateTime(k.expires_at) },
                {
                  header: 'Actions',
                  cell: (k) => (
                    <ConfirmButton
                      label="Deactivate"
                      confirmLabel={`Deactivate ${k.name}`}
                      busy={deactivate.busy}
                      onConfirm={() => void deactivate.run(k.id)}
                    />
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

export const keyScreens: ScreenDef[] = [
  {
    path: '/keys',
    title: 'API keys',
    nav: { label: 'API keys', order: 60 },
    requires: KEYS_REQUIREMENT,
    component: KeysScreen,
  },
];
