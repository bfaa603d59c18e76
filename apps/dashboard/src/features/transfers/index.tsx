import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { Zone } from '../../api/types';
import { planAtLeast, type ScreenDef, type ScreenProps } from '../../app/screen';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { Checkbox, Form, SelectField, TextArea, TextField } from '../../components/forms';
import { ErrorNotice, Loaded, Notice } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { CopyBlock } from '../../components/secret';
import { DataTable } from '../../components/table';

/** Contract §18. */
export interface TsigKey {
  id: string;
  name: string;
  algorithm: 'hmac-sha256' | 'hmac-sha512';
  purpose: 'transfer' | 'update';
  zones: string[];
  allow: Array<{ name: string; types: string[] }>;
  created_at: string;
  secret?: string;
}

export interface SecondaryServer {
  id: string;
  address: string;
  tsig_key: string;
  last_notified_at: string | null;
  last_transfer_at: string | null;
  last_serial: number | null;
}

/** `name TYPE TYPE` per line (no types: every type). */
const parseAllow = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [name, ...types] = l.split(/[\s,]+/);
      return { name, types };
    });

function CreateTsigKey({ zones, onCreated }: { zones: string[]; onCreated: (k: TsigKey) => void }) {
  const [name, setName] = useState('');
  const [algorithm, setAlgorithm] = useState<TsigKey['algorithm']>('hmac-sha256');
  const [purpose, setPurpose] = useState<TsigKey['purpose']>('transfer');
  const [chosen, setChosen] = useState<string[]>([]);
  const [allow, setAllow] = useState('');
  const create = useAction(async () => {
    const body = {
      name: name.trim(),
      algorithm,
      purpose,
      zones: chosen,
      ...(purpose === 'update' && allow.trim() ? { allow: parseAllow(allow) } : {}),
    };
    onCreated(await api.post<TsigKey>('/tsig-keys', body));
    setName('');
    setAllow('');
  });
  return (
    <Form
      onSubmit={() => void create.run()}
      busy={create.busy}
      error={create.error}
      submitLabel="Create TSIG key"
      busyLabel="Creating…"
      label="Create a TSIG key"
    >
      <TextField
        label="Key name"
        name="name"
        value={name}
        onValue={setName}
        required
        maxLength={253}
        hint="A DNS name, unique in the service, e.g. ns2-transfer.example.com."
      />
      <div class="form-grid">
        <SelectField
          label="Algorithm"
          value={algorithm}
          onValue={setAlgorithm}
          options={[
            { value: 'hmac-sha256', label: 'hmac-sha256' },
            { value: 'hmac-sha512', label: 'hmac-sha512' },
          ]}
        />
        <SelectField
          label="Purpose"
          value={purpose}
          onValue={setPurpose}
          options={[
            { value: 'transfer', label: 'Zone transfers (secondaries)' },
            { value: 'update', label: 'Dynamic updates (RFC 2136)' },
          ]}
        />
      </div>
      <fieldset>
        <legend>Zones the key covers</legend>
        {zones.length === 0 && <p class="hint">No zones yet.</p>}
        {zones.map((z) => (
          <Checkbox
            key={z}
            label={z}
            checked={chosen.includes(z)}
            onChecked={(on) => setChosen(on ? [...chosen, z] : chosen.filter((x) => x !== z))}
          />
        ))}
      </fieldset>
      {purpose === 'update' && (
        <TextArea
          label="Limit to names and types (optional)"
          name="allow"
          value={allow}
          onValue={setAllow}
          rows={3}
          spellcheck={false}
          hint={
            'One per line: a name relative to the zone (or *.name for the names below it), then types, ' +
            'e.g. “*._acme-challenge TXT”. Empty: the whole zone.'
          }
        />
      )}
    </Form>
  );
}

function TsigKeysScreen(_: ScreenProps) {
  const keys = useResource(() => api.get<{ tsig_keys: TsigKey[] }>('/tsig-keys'));
  const zones = useResource(() => api.get<{ zones: Zone[] }>('/zones'));
  const [created, setCreated] = useState<TsigKey | null>(null);
  const remove = useAction(async (id: string) => {
    await api.del(`/tsig-keys/${seg(id)}`);
    await keys.reload();
  });
  return (
    <div class="stack">
      {created && (
        <section class="card" aria-labelledby="new-tsig-key">
          <h2 id="new-tsig-key">TSIG key “{created.name}” created</h2>
          <Notice kind="warning">
            <p>
              This is the only time the secret is shown. Copy it into your secondary's or client's configuration now.
            </p>
          </Notice>
          <CopyBlock label="Secret (base64)" text={created.secret!} />
          <CopyBlock label="For nsupdate / dig" text={`-y ${created.algorithm}:${created.name}:${created.secret!}`} />
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </section>
      )}
      <section class="card" aria-labelledby="create-tsig-key">
        <h2 id="create-tsig-key">New TSIG key</h2>
        <Loaded resource={zones}>
          {(d) => (
            <CreateTsigKey
              zones={d.zones.map((z) => z.name)}
              onCreated={(k) => {
                setCreated(k);
                void keys.reload();
              }}
            />
          )}
        </Loaded>
      </section>
      <section class="card" aria-labelledby="tsig-keys">
        <h2 id="tsig-keys">TSIG keys</h2>
        <ErrorNotice error={remove.error} />
        <Loaded resource={keys}>
          {(d) => (
            <DataTable
              caption="TSIG keys"
              rows={d.tsig_keys}
              rowKey={(k) => k.id}
              empty="No TSIG keys."
              columns={[
                { header: 'Name', cell: (k) => <code>{k.name}</code> },
                { header: 'Algorithm', cell: (k) => k.algorithm },
                { header: 'Purpose', cell: (k) => (k.purpose === 'transfer' ? 'Transfers' : 'Updates') },
                { header: 'Zones', cell: (k) => k.zones.join(', ') || '—' },
                {
                  header: 'Limited to',
                  cell: (k) =>
                    k.allow.map((a) => `${a.name || '@'} ${a.types.join(' ') || 'any type'}`).join('; ') || '—',
                },
                { header: 'Created', cell: (k) => dateTime(k.created_at) },
                {
                  header: 'Actions',
                  cell: (k) => (
                    <ConfirmButton
                      label="Delete"
                      confirmLabel={`Delete ${k.name}`}
                      busy={remove.busy}
                      onConfirm={() => void remove.run(k.id)}
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

/** The secondaries card of a zone's screen (Pro and Elite). */
export function ZoneSecondaries({ zone }: { zone: string }) {
  const path = `/zones/${seg(zone)}/secondaries`;
  const secondaries = useResource(() => api.get<{ secondaries: SecondaryServer[] }>(path), [zone]);
  const keys = useResource(() => api.get<{ tsig_keys: TsigKey[] }>('/tsig-keys'));
  const [address, setAddress] = useState('');
  const [key, setKey] = useState('');
  const add = useAction(async (tsigKey: string) => {
    await api.post(path, { address: address.trim(), tsig_key: tsigKey });
    setAddress('');
    await secondaries.reload();
  });
  const remove = useAction(async (id: string) => {
    await api.del(`${path}/${seg(id)}`);
    await secondaries.reload();
  });
  return (
    <section class="card" aria-labelledby="secondaries">
      <h2 id="secondaries">Secondary servers</h2>
      <p class="hint">Servers that transfer this zone (AXFR/IXFR, TSIG-signed) and get a NOTIFY on every change.</p>
      <ErrorNotice error={remove.error} />
      <Loaded resource={secondaries}>
        {(d) => (
          <DataTable
            caption={`Secondaries of ${zone}`}
            rows={d.secondaries}
            rowKey={(s) => s.id}
            empty="No secondaries."
            columns={[
              { header: 'Address', cell: (s) => <code>{s.address}</code> },
              { header: 'TSIG key', cell: (s) => <code>{s.tsig_key}</code> },
              { header: 'Last NOTIFY', cell: (s) => dateTime(s.last_notified_at) },
              { header: 'Last transfer', cell: (s) => dateTime(s.last_transfer_at) },
              { header: 'Serial', cell: (s) => (s.last_serial === null ? '—' : String(s.last_serial)), numeric: true },
              {
                header: 'Actions',
                cell: (s) => (
                  <ConfirmButton
                    label="Remove"
                    confirmLabel={`Remove ${s.address}`}
                    busy={remove.busy}
                    onConfirm={() => void remove.run(s.id)}
                  />
                ),
              },
            ]}
          />
        )}
      </Loaded>
      <Loaded resource={keys}>
        {(d) => {
          const transferKeys = d.tsig_keys.filter((k) => k.purpose === 'transfer');
          if (transferKeys.length === 0)
            return <p class="hint">Create a transfer TSIG key (TSIG keys screen) to add a secondary.</p>;
          const chosen = key || transferKeys[0].name;
          return (
            <Form
              onSubmit={() => void add.run(chosen)}
              busy={add.busy}
              error={add.error}
              submitLabel="Add secondary"
              label="Add a secondary server"
            >
              <div class="form-grid">
                <TextField
                  label="Address"
                  name="address"
                  value={address}
                  onValue={setAddress}
                  required
                  placeholder="192.0.2.53 or [2001:db8::53]:5353"
                />
                <SelectField
                  label="TSIG key"
                  value={chosen}
                  onValue={setKey}
                  options={transferKeys.map((k) => ({ value: k.name, label: k.name }))}
                />
              </div>
            </Form>
          );
        }}
      </Loaded>
    </section>
  );
}

export const transferScreens: ScreenDef[] = [
  {
    path: '/tsig-keys',
    title: 'TSIG keys',
    nav: { label: 'TSIG keys', order: 65 },
    requires: planAtLeast('pro', 'TSIG keys'),
    component: TsigKeysScreen,
  },
];
