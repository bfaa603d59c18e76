import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { Account, DdnsHost } from '../../api/types';
import { Link } from '../../app/link';
import { navigate } from '../../app/router';
import type { ScreenDef, ScreenProps } from '../../app/screen';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { Form, SelectField, TextField } from '../../components/forms';
import { ErrorNotice, Loaded, Notice } from '../../components/notices';
import { useLive } from '../../components/live';
import { useAction, useResource } from '../../components/resource';
import { CopyBlock } from '../../components/secret';
import { DataTable } from '../../components/table';
import { curlCommand, ddclientConfig, inadynConfig, KEY_PLACEHOLDER, routerUrl } from './client-config';
import { AddressFamily, FAMILY_LABEL, HOST_TTL_MAX, HOST_TTL_MIN, HostEditRequest } from './host-edit-types';

const addressesOf = (h: DdnsHost) =>
  [
    h.addresses?.ipv4 ?? (h.record_type === 'A' ? h.record_ip : null),
    h.addresses?.ipv6 ?? (h.record_type === 'AAAA' ? h.record_ip : null),
  ]
    .filter(Boolean)
    .join(', ');

function CreateHost({ onCreated }: { onCreated: (h: DdnsHost) => void }) {
  const [fqdn, setFqdn] = useState('');
  const [type, setType] = useState<'A' | 'AAAA'>('A');
  const [ip, setIp] = useState('');
  const create = useAction(async () => {
    onCreated(
      await api.post<DdnsHost>('/api/domains', {
        fqdn: fqdn.trim().toLowerCase(),
        record_type: type,
        record_ip: ip.trim(),
      }),
    );
    setFqdn('');
    setIp('');
  });
  return (
    <Form
      onSubmit={() => void create.run()}
      busy={create.busy}
      error={create.error}
      submitLabel="Create host"
      busyLabel="Creating…"
      label="Create a DDNS host"
      class="form-inline"
    >
      <TextField
        label="Host name"
        name="fqdn"
        value={fqdn}
        onValue={setFqdn}
        required
        placeholder="home.dyn.example.net"
        hint="Under one of the service's dynamic-DNS zones or one of your verified zones."
      />
      <SelectField
        label="Record type"
        value={type}
        onValue={setType}
        options={[
          { value: 'A', label: 'A (IPv4)' },
          { value: 'AAAA', label: 'AAAA (IPv6)' },
        ]}
      />
      <TextField
        label="Address"
        name="record_ip"
        value={ip}
        onValue={setIp}
        required
        placeholder={type === 'A' ? '203.0.113.7' : '2001:db8::7'}
      />
    </Form>
  );
}

function HostsScreen(_: ScreenProps) {
  const hosts = useResource(() => api.get<DdnsHost[]>('/domains'));
  useLive(['ddns'], hosts.reload);
  return (
    <div class="stack">
      <section class="card" aria-labelledby="new-host">
        <h2 id="new-host">New host</h2>
        <CreateHost onCreated={(h) => navigate(`/ddns/${seg(h.fqdn)}`)} />
      </section>
      <section class="card" aria-labelledby="hosts">
        <h2 id="hosts">Your hosts</h2>
        <Loaded resource={hosts}>
          {(list) => (
            <DataTable
              caption="Dynamic DNS hosts"
              rows={list}
              rowKey={(h) => h.id}
              empty="No hosts yet. Create one above."
              columns={[
                { header: 'Host', cell: (h) => <Link to={`/ddns/${seg(h.fqdn)}`}>{h.fqdn}</Link> },
                { header: 'Addresses', cell: (h) => <code>{addressesOf(h)}</code> },
                { header: 'TTL', cell: (h) => `${h.ttl} s`, numeric: true },
                { header: 'Updated', cell: (h) => dateTime(h.updated_at) },
              ]}
            />
          )}
        </Loaded>
      </section>
    </div>
  );
}

/** Account keys authenticate DDNS clients; they need Pro or Elite (contract §3). */
const keysAllowed = (a: Account) => a.plan === 'pro' || a.plan === 'elite';

/**
 * Ready-to-paste client configurations, with an offer to make the key they need: the new key
 * is filled into every configuration and shown only this once.
 */
function ClientConfigs({ fqdn, account }: { fqdn: string; account: Account }) {
  const [key, setKey] = useState<string | null>(null);
  const create = useAction(async () => {
    const made = await api.post<{ key: string }>('/api-keys/', { name: `DDNS clients of ${fqdn}` });
    setKey(made.key);
  });
  const input = {
    fqdn,
    username: account.username,
    host: location.host,
    https: location.protocol === 'https:',
    key: key ?? undefined,
  };
  return (
    <section class="card" aria-labelledby="client-config">
      <h2 id="client-config">Update clients</h2>
      {key ? (
        <Notice kind="success">
          <p>
            A key named “DDNS clients of {fqdn}” was made and filled in below. It is shown only now: copy the
            configuration you need before leaving this page. You can revoke it under <Link to="/keys">API keys</Link>.
          </p>
        </Notice>
      ) : keysAllowed(account) ? (
        <>
          <p>
            Clients sign in with an account API key. Make one for this host's clients, and it is filled into every
            configuration below; or replace <code>{KEY_PLACEHOLDER}</code> with a key you have (
            <Link to="/keys">API keys</Link>).
          </p>
          <ErrorNotice error={create.error} />
          <div class="button-row">
            <button type="button" disabled={create.busy} onClick={() => void create.run()}>
              {create.busy ? 'Making the key…' : 'Make a key for these clients'}
            </button>
          </div>
        </>
      ) : (
        <p>
          Clients sign in with an account API key, which needs the Pro or Elite plan. With one, replace{' '}
          <code>{KEY_PLACEHOLDER}</code> below.
        </p>
      )}
      <p class="hint">Each client updates the address whenever it changes.</p>
      <CopyBlock label="ddclient" text={ddclientConfig(input)} filename="ddclient.conf" />
      <CopyBlock label="inadyn" text={inadynConfig(input)} filename="inadyn.conf" />
      <CopyBlock
        label="Router update URL"
        text={routerUrl(input)}
        note="For routers with a custom DynDNS URL; <ipaddr> is filled in by the router."
      />
      <CopyBlock label="Script (curl)" text={curlCommand(input)} />
    </section>
  );
}

const familyAddress = (h: DdnsHost, f: AddressFamily) =>
  h.addresses?.[f] ?? (h.record_type === (f === 'ipv4' ? 'A' : 'AAAA') ? h.record_ip : null);

/**
 * The host's addresses, one line per family, each with "Remove" asking again in place and
 * naming the address. The only address cannot be removed (the service refuses it): the
 * line says to delete the host instead.
 */
function Addresses({ host, onEdit }: { host: DdnsHost; onEdit: (body: HostEditRequest) => Promise<void> }) {
  const [removing, setRemoving] = useState<AddressFamily | null>(null);
  const remove = useAction(async (family: AddressFamily) => {
    setRemoving(family);
    try {
      await onEdit({ [family]: null });
    } finally {
      setRemoving(null);
    }
  });
  const present = (['ipv4', 'ipv6'] as const).filter((f) => familyAddress(host, f));
  return (
    <>
      <ul class="host-addresses" aria-label="Addresses">
        {present.map((f) => (
          <li key={f}>
            <span class="family">{FAMILY_LABEL[f]}</span>
            <code>{familyAddress(host, f)}</code>
            {present.length > 1 ? (
              <ConfirmButton
                label={`Remove ${FAMILY_LABEL[f]} address`}
                confirmLabel={`Remove ${familyAddress(host, f)}: stop answering ${f === 'ipv4' ? 'A' : 'AAAA'} queries`}
                busy={remove.busy && removing === f}
                onConfirm={() => void remove.run(f)}
              />
            ) : (
              <span class="hint">The only address: delete the host to stop answering.</span>
            )}
          </li>
        ))}
      </ul>
      <ErrorNotice error={remove.error} />
    </>
  );
}

function TtlForm({ host, onEdit }: { host: DdnsHost; onEdit: (body: HostEditRequest) => Promise<void> }) {
  const [ttl, setTtl] = useState(String(host.ttl));
  const save = useAction(async () => onEdit({ ttl: Number(ttl) }));
  return (
    <Form
      onSubmit={() => void save.run()}
      busy={save.busy}
      error={save.error}
      submitLabel="Save TTL"
      label="Change the TTL"
      class="form-inline"
    >
      <TextField
        label="TTL (seconds)"
        name="ttl"
        inputMode="numeric"
        value={ttl}
        onValue={setTtl}
        required
        hint={`How long resolvers may cache the answer: ${HOST_TTL_MIN} to ${HOST_TTL_MAX} seconds. Short suits a changing address.`}
      />
    </Form>
  );
}

function HostScreen({ params, account }: ScreenProps) {
  const path = `/api/domains/fqdn/${seg(params.fqdn)}`;
  const host = useResource(() => api.get<DdnsHost>(path), [params.fqdn]);
  // A client's update (router, ddclient) shows here as it happens.
  useLive(['ddns'], host.reload);
  const [ip, setIp] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const edit = async (body: HostEditRequest, what: string) => {
    host.set(await api.put<DdnsHost>(path, body));
    setSaved(what);
  };
  const update = useAction(async () => {
    await edit({ record_ip: ip.trim() }, 'Address saved: the DNS server answers with it within a second.');
    setIp('');
  });
  const remove = useAction(async () => {
    await api.del(path);
    navigate('/ddns');
  });
  return (
    <Loaded resource={host}>
      {(h) => (
        <div class="stack">
          <section class="card" aria-labelledby="host-record">
            <h2 id="host-record">Record</h2>
            {saved && (
              <Notice kind="success">
                {saved} Undo from the <Link to={`/ddns/${seg(h.fqdn)}/history`}>history</Link>.
              </Notice>
            )}
            <Addresses
              host={h}
              onEdit={(body) => {
                const family = Object.keys(body)[0] as AddressFamily;
                return edit(
                  body,
                  `${FAMILY_LABEL[family]} address removed: the DNS server stops answering ${family === 'ipv4' ? 'A' : 'AAAA'} queries within a second.`,
                );
              }}
            />
            <dl class="facts">
              <dt>TTL</dt>
              <dd>{h.ttl} s</dd>
              <dt>Updated</dt>
              <dd>
                {dateTime(h.updated_at)} (<Link to={`/ddns/${seg(h.fqdn)}/history`}>history</Link>)
              </dd>
            </dl>
            <Form
              onSubmit={() => void update.run()}
              busy={update.busy}
              error={update.error}
              submitLabel="Save address"
              label="Change the address"
              class="form-inline"
            >
              <TextField
                label="New address (IPv4 or IPv6)"
                name="record_ip"
                value={ip}
                onValue={setIp}
                required
                hint="An address of the other family adds it beside the current one."
              />
            </Form>
            <TtlForm
              key={h.ttl}
              host={h}
              onEdit={(body) => edit(body, `TTL set to ${body.ttl} s: the DNS server answers with it within a second.`)}
            />
            <ErrorNotice error={remove.error} />
            <div class="button-row">
              <ConfirmButton
                label="Delete host"
                confirmLabel={`Delete ${h.fqdn}`}
                busy={remove.busy}
                onConfirm={() => void remove.run()}
              />
            </div>
          </section>
          <ClientConfigs fqdn={h.fqdn} account={account} />
        </div>
      )}
    </Loaded>
  );
}

export const ddnsScreens: ScreenDef[] = [
  { path: '/ddns', title: 'Dynamic DNS hosts', nav: { label: 'DDNS hosts', order: 10 }, component: HostsScreen },
  { path: '/ddns/:fqdn', title: (p) => p.fqdn, component: HostScreen },
];
