import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { Zone } from '../../api/types';
import { Link } from '../../app/link';
import { navigate } from '../../app/router';
import type { ScreenProps } from '../../app/screen';
import { dateTime, splitList } from '../../components/format';
import { Checkbox, Form, SelectField, TextArea, TextField } from '../../components/forms';
import { Loaded, Notice } from '../../components/notices';
import { useLive } from '../../components/live';
import { useAction, useResource } from '../../components/resource';
import { DataTable } from '../../components/table';
import { CertificateStatusBadge } from './status';
import type { Certificate, CertificateLimits, CertificateList } from './types';

/** Names on a certificate, as the CA sees them (wildcard adds `*.<domain>`). */
export const namesOf = (c: Certificate): string[] => [c.domain, ...(c.is_wildcard ? [`*.${c.domain}`] : []), ...c.sans];

function Limits({ limits }: { limits: CertificateLimits }) {
  return (
    <ul class="tiles" aria-label="Plan limits">
      <li class="tile">
        <span class="tile-figure">
          {limits.current_count}/{limits.max_certificates}
        </span>
        <span>certificates used on your plan</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{limits.wildcard_enabled ? 'Yes' : 'No'}</span>
        <span>wildcard certificates{limits.wildcard_enabled ? '' : ' (Elite plan)'}</span>
      </li>
      <li class="tile">
        <span class="tile-figure">{limits.auto_renew_enabled ? 'Yes' : 'No'}</span>
        <span>automatic renewal{limits.auto_renew_enabled ? '' : ' (Pro or Elite plan)'}</span>
      </li>
    </ul>
  );
}

function RequestForm({ zones, limits }: { zones: Zone[]; limits: CertificateLimits }) {
  const verified = zones.filter((z) => z.status === 'verified');
  const [zone, setZone] = useState(verified[0]?.name ?? '');
  const [domain, setDomain] = useState(verified[0]?.name ?? '');
  const [sans, setSans] = useState('');
  const [wildcard, setWildcard] = useState(false);
  const [autoRenew, setAutoRenew] = useState(false);
  const request = useAction(async () => {
    const created = await api.post<Certificate>('/certificates', {
      zone,
      domain: domain.trim().toLowerCase().replace(/\.$/, ''),
      sans: splitList(sans.toLowerCase()),
      wildcard,
      auto_renew: autoRenew,
    });
    navigate(`/certificates/${seg(created.id)}`);
  });
  if (verified.length === 0)
    return (
      <p class="empty">
        Certificates are issued for names in your verified zones. <Link to="/zones">Import and verify a zone</Link>{' '}
        first.
      </p>
    );
  if (limits.current_count >= limits.max_certificates)
    return (
      <Notice kind="warning">
        You have used all {limits.max_certificates} certificates of your plan. Delete one, or ask the operators for a
        larger plan.
      </Notice>
    );
  return (
    <Form
      onSubmit={() => void request.run()}
      busy={request.busy}
      error={request.error}
      submitLabel="Request certificate"
      busyLabel="Requesting…"
      label="Request a certificate"
    >
      <div class="form-grid">
        <SelectField
          label="Zone"
          name="zone"
          value={zone}
          onValue={(z) => {
            // Keep the domain inside the chosen zone when it was still the old zone's apex.
            if (domain === zone || domain === '') setDomain(z);
            setZone(z);
          }}
          options={verified.map((z) => ({ value: z.name, label: z.name }))}
        />
        <TextField
          label="Domain"
          name="domain"
          value={domain}
          onValue={setDomain}
          required
          hint="The main name: the zone itself or a name under it."
        />
      </div>
      <TextArea
        label="Additional names (SANs)"
        name="sans"
        value={sans}
        onValue={setSans}
        rows={3}
        spellcheck={false}
        hint="Optional: one name per line, each under the zone."
      />
      <Checkbox
        label="Wildcard (also covers *.domain)"
        name="wildcard"
        checked={wildcard}
        onChecked={setWildcard}
        disabled={!limits.wildcard_enabled}
        hint={limits.wildcard_enabled ? undefined : 'Needs the Elite plan.'}
      />
      <Checkbox
        label="Renew automatically before expiry"
        name="auto_renew"
        checked={autoRenew}
        onChecked={setAutoRenew}
        disabled={!limits.auto_renew_enabled}
        hint={limits.auto_renew_enabled ? undefined : 'Needs the Pro or Elite plan.'}
      />
      <p class="hint">
        The certificate is issued by the ACME CA after it checks a DNS-01 challenge that this service publishes in your
        zone; it takes a few seconds to a minute.
      </p>
    </Form>
  );
}

export function CertificatesScreen(_: ScreenProps) {
  const data = useResource(async () => {
    const [list, zones] = await Promise.all([
      api.get<CertificateList>('/certificates'),
      api.get<{ zones: Zone[] }>('/zones'),
    ]);
    return { ...list, zones: zones.zones };
  });
  useLive(['certificates', 'zones'], data.reload);
  return (
    <Loaded resource={data}>
      {(d) => (
        <div class="stack">
          <Limits limits={d.limits} />
          <section class="card" aria-labelledby="cert-list">
            <h2 id="cert-list">Your certificates</h2>
            <DataTable
              caption="Certificates"
              rows={d.certificates}
              rowKey={(c) => c.id}
              empty="No certificates yet. Request one below."
              columns={[
                {
                  header: 'Names',
                  cell: (c) => <Link to={`/certificates/${seg(c.id)}`}>{namesOf(c).join(', ')}</Link>,
                },
                { header: 'Status', cell: (c) => <CertificateStatusBadge status={c.status} /> },
                { header: 'Expires', cell: (c) => dateTime(c.expires_at) },
                { header: 'Auto-renew', cell: (c) => (c.auto_renew ? 'On' : 'Off') },
              ]}
            />
          </section>
          <section class="card" aria-labelledby="cert-request">
            <h2 id="cert-request">Request a certificate</h2>
            <RequestForm zones={d.zones} limits={d.limits} />
          </section>
        </div>
      )}
    </Loaded>
  );
}
