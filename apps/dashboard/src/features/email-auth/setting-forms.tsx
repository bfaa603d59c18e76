import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { ConfirmPanel } from '../../components/confirm';
import { splitList } from '../../components/format';
import { Form, SelectField, TextArea, TextField } from '../../components/forms';
import { Notice } from '../../components/notices';
import { useAction } from '../../components/resource';
import type { DmarcPolicy, EmailAuthSettings, SpfAll } from './types';

/** What each settings form gets: the zone's settings and where to put the service's answer. */
export interface SettingsFormProps {
  base: string;
  settings: EmailAuthSettings;
  onSaved: (s: EmailAuthSettings) => void;
}

const joinLines = (list: string[] | undefined) => (list ?? []).join('\n');
const POLICIES: { value: DmarcPolicy; label: string }[] = [
  { value: 'none', label: 'none (monitor only)' },
  { value: 'quarantine', label: 'quarantine (spam folder)' },
  { value: 'reject', label: 'reject' },
];
const ALIGNMENT = [
  { value: 'r', label: 'relaxed' },
  { value: 's', label: 'strict' },
] as const;

/** One settings family: a PUT of its body, a success note, the service's error in place. */
function useSave(props: SettingsFormProps, path: string, what: string) {
  const [saved, setSaved] = useState(false);
  const save = useAction(async (body: unknown) => {
    setSaved(false);
    props.onSaved(await api.put<EmailAuthSettings>(`${props.base}/${path}`, body));
    setSaved(true);
  });
  const note = saved ? <Notice kind="success">{what} saved; the record is served at once.</Notice> : null;
  return { save, note };
}

export function DmarcForm(props: SettingsFormProps) {
  const d = props.settings.dmarc;
  const zone = props.settings.zone;
  const [policy, setPolicy] = useState<DmarcPolicy>(d?.policy ?? 'none');
  const [sp, setSp] = useState<DmarcPolicy | 'same'>(d?.subdomain_policy ?? 'same');
  const [pct, setPct] = useState(String(d?.percentage ?? 100));
  const [rua, setRua] = useState(d ? joinLines(d.rua) : `mailto:dmarc-rua@${zone}`);
  const [ruf, setRuf] = useState(joinLines(d?.ruf));
  const [adkim, setAdkim] = useState<'r' | 's'>(d?.adkim ?? 'r');
  const [aspf, setAspf] = useState<'r' | 's'>(d?.aspf ?? 'r');
  const { save, note } = useSave(props, 'dmarc', 'DMARC');
  return (
    <Form
      label="DMARC"
      submitLabel="Save DMARC"
      busy={save.busy}
      error={save.error}
      onSubmit={() =>
        void save.run({
          policy,
          subdomain_policy: sp === 'same' ? null : sp,
          percentage: Number(pct),
          rua: splitList(rua),
          ruf: splitList(ruf),
          adkim,
          aspf,
          ...(d?.fo ? { fo: d.fo } : {}),
        })
      }
    >
      <div class="form-grid form-grid-3">
        <SelectField label="Policy" name="policy" value={policy} onValue={setPolicy} options={POLICIES} />
        <SelectField
          label="Subdomain policy"
          name="subdomain_policy"
          value={sp}
          onValue={setSp}
          options={[{ value: 'same', label: 'same as policy' }, ...POLICIES]}
        />
        <TextField
          label="Percentage of mail"
          name="percentage"
          type="number"
          min={1}
          max={100}
          value={pct}
          onValue={setPct}
          required
        />
        <SelectField label="DKIM alignment" name="adkim" value={adkim} onValue={setAdkim} options={[...ALIGNMENT]} />
        <SelectField label="SPF alignment" name="aspf" value={aspf} onValue={setAspf} options={[...ALIGNMENT]} />
      </div>
      <TextArea
        label="Aggregate report addresses (rua)"
        name="rua"
        rows={2}
        value={rua}
        onValue={setRua}
        spellcheck={false}
        hint="mailto: URIs, one per line. Without one the DMARC wizard gets no data."
      />
      <TextArea
        label="Failure report addresses (ruf)"
        name="ruf"
        rows={2}
        value={ruf}
        onValue={setRuf}
        spellcheck={false}
        hint="Optional mailto: URIs, one per line."
      />
      {note}
    </Form>
  );
}

const ALL_OPTIONS: { value: SpfAll | 'redirect'; label: string }[] = [
  { value: '-all', label: '-all (fail)' },
  { value: '~all', label: '~all (soft fail)' },
  { value: '?all', label: '?all (neutral)' },
  { value: 'redirect', label: 'what another domain says (redirect)' },
];

/**
 * The apex SPF record. The form starts from the record the zone serves (an imported
 * zone's own, say), not from empty fields: saving then keeps what the owner did not
 * change. Terms the form cannot hold are named, and saving without them asks first.
 */
export function SpfForm(props: SettingsFormProps) {
  const published = props.settings.published_spf;
  const s = published?.settings ?? props.settings.spf;
  const [include, setInclude] = useState(joinLines(s?.include));
  const [ip4, setIp4] = useState(joinLines(s?.ip4));
  const [ip6, setIp6] = useState(joinLines(s?.ip6));
  const [a, setA] = useState(joinLines(s?.a));
  const [mx, setMx] = useState(joinLines(s?.mx));
  const [exists, setExists] = useState(joinLines(s?.exists));
  const [all, setAll] = useState<SpfAll | 'redirect'>(s?.redirect ? 'redirect' : (s?.all ?? '~all'));
  const [redirect, setRedirect] = useState(s?.redirect ?? '');
  const [asking, setAsking] = useState(false);
  const { save, note } = useSave(props, 'spf', 'SPF');
  const dropped = published?.unsupported ?? [];
  const body = () => ({
    include: splitList(include),
    ip4: splitList(ip4),
    ip6: splitList(ip6),
    a: splitList(a),
    mx: splitList(mx),
    exists: splitList(exists),
    ...(all === 'redirect' ? { all: null, redirect: redirect.trim() } : { all }),
  });
  return (
    <Form
      label="SPF"
      submitLabel="Save SPF"
      busy={save.busy}
      error={save.error}
      onSubmit={() => (dropped.length ? setAsking(true) : void save.run(body()))}
    >
      {published && (
        <p class="hint">
          Published now: <code>{published.record}</code>
        </p>
      )}
      {dropped.length > 0 && (
        <Notice kind="warning">
          <p>
            The published record has terms this form cannot keep: <code>{dropped.join(' ')}</code>. Saving publishes the
            record without them.
          </p>
        </Notice>
      )}
      <TextArea
        label="Include (sending services' domains)"
        name="include"
        rows={2}
        value={include}
        onValue={setInclude}
        spellcheck={false}
        hint="e.g. _spf.google.com, one per line."
      />
      <div class="form-grid form-grid-3">
        <TextArea label="IPv4 senders" name="ip4" rows={2} value={ip4} onValue={setIp4} spellcheck={false} />
        <TextArea label="IPv6 senders" name="ip6" rows={2} value={ip6} onValue={setIp6} spellcheck={false} />
        <TextArea
          label="Mail servers (mx) of"
          name="mx"
          rows={2}
          value={mx}
          onValue={setMx}
          spellcheck={false}
          hint="@ for this zone's own MX hosts, or domains."
        />
        <TextArea
          label="Addresses (a) of"
          name="a"
          rows={2}
          value={a}
          onValue={setA}
          spellcheck={false}
          hint="@ for this zone's own addresses, or host names."
        />
        <TextArea
          label="Exists checks"
          name="exists"
          rows={2}
          value={exists}
          onValue={setExists}
          spellcheck={false}
          hint="Domain specs, macros allowed, e.g. %{i}._spf.example.com."
        />
        <SelectField label="Everything else" name="all" value={all} onValue={setAll} options={ALL_OPTIONS} />
      </div>
      {all === 'redirect' && (
        <TextField
          label="Redirect to"
          name="redirect"
          value={redirect}
          onValue={setRedirect}
          required
          placeholder="_spf.example.com"
        />
      )}
      {props.settings.spf && <p class="hint">DNS lookups used: {props.settings.spf.dns_lookups} of 10.</p>}
      {asking && (
        <ConfirmPanel
          title="Remove terms from the SPF record?"
          confirmLabel="Remove and save"
          busy={save.busy}
          onBack={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            void save.run(body());
          }}
        >
          <p>
            Saving removes <code>{dropped.join(' ')}</code> from the published SPF record.
          </p>
        </ConfirmPanel>
      )}
      {note}
    </Form>
  );
}

export function MtaStsForm(props: SettingsFormProps) {
  const m = props.settings.mta_sts;
  const [mode, setMode] = useState<'enforce' | 'testing' | 'none'>(m?.mode ?? 'testing');
  const [mx, setMx] = useState(joinLines(m?.mx));
  const [maxAge, setMaxAge] = useState(String(m?.max_age ?? 604800));
  const { save, note } = useSave(props, 'mta-sts', 'MTA-STS');
  return (
    <Form
      label="MTA-STS"
      submitLabel="Save MTA-STS"
      busy={save.busy}
      error={save.error}
      onSubmit={() => void save.run({ mode, mx: splitList(mx), max_age: Number(maxAge) })}
    >
      <div class="form-grid form-grid-3">
        <SelectField
          label="Mode"
          name="mode"
          value={mode}
          onValue={setMode}
          options={[
            { value: 'testing', label: 'testing (report only)' },
            { value: 'enforce', label: 'enforce' },
            { value: 'none', label: 'none (withdraw)' },
          ]}
        />
        <TextField
          label="Max age (seconds)"
          name="max_age"
          type="number"
          min={1}
          max={31557600}
          value={maxAge}
          onValue={setMaxAge}
          required
        />
      </div>
      <TextArea
        label="Mail servers (MX patterns)"
        name="mx"
        rows={2}
        value={mx}
        onValue={setMx}
        spellcheck={false}
        hint="e.g. mail.example.com or *.mail.example.com, one per line."
      />
      {m && <p class="hint">Policy file: {m.policy_url}</p>}
      {note}
    </Form>
  );
}

export function TlsRptForm(props: SettingsFormProps) {
  const [rua, setRua] = useState(joinLines(props.settings.tls_rpt?.rua));
  const { save, note } = useSave(props, 'tls-rpt', 'TLS-RPT');
  return (
    <Form
      label="TLS-RPT"
      submitLabel="Save TLS-RPT"
      busy={save.busy}
      error={save.error}
      onSubmit={() => void save.run({ rua: splitList(rua) })}
    >
      <TextArea
        label="TLS report addresses"
        name="tls_rua"
        rows={2}
        value={rua}
        onValue={setRua}
        spellcheck={false}
        hint="mailto: or https: URIs, one per line."
      />
      {note}
    </Form>
  );
}

export function BimiForm(props: SettingsFormProps) {
  const b = props.settings.bimi;
  const [logo, setLogo] = useState(b?.logo_url ?? '');
  const [vmc, setVmc] = useState(b?.vmc_url ?? '');
  const { save, note } = useSave(props, 'bimi', 'BIMI');
  return (
    <Form
      label="BIMI"
      submitLabel="Save BIMI"
      busy={save.busy}
      error={save.error}
      onSubmit={() => void save.run({ logo_url: logo.trim(), vmc_url: vmc.trim() || null })}
    >
      <div class="form-grid form-grid-3">
        <TextField
          label="Logo URL (SVG)"
          name="logo_url"
          type="url"
          value={logo}
          onValue={setLogo}
          required
          placeholder="https://…/logo.svg"
        />
        <TextField
          label="Certificate (VMC) URL"
          name="vmc_url"
          type="url"
          value={vmc}
          onValue={setVmc}
          placeholder="optional"
        />
      </div>
      {note}
    </Form>
  );
}
