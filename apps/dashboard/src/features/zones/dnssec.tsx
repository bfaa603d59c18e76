import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { Dnssec } from '../../api/types';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { SelectField } from '../../components/forms';
import { ErrorNotice, Loaded } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { CopyBlock } from '../../components/secret';
import { DataTable } from '../../components/table';

const ALGORITHMS = [
  { value: '13', label: '13 — ECDSA P-256 with SHA-256 (recommended)' },
  { value: '15', label: '15 — Ed25519' },
];

const STATE_LABEL: Record<Dnssec['state'], [string, string]> = {
  unsigned: ['Not signed', 'status-warn'],
  signed: ['Signed', 'status-ok'],
  rolling: ['Key rollover in progress', 'status-warn'],
  // A sentence, not a word: it may wrap on a phone (badges otherwise stay on one line).
  unsigning: ['Turning off: waiting for the DS to be removed', 'status-warn status-wrap'],
};

/** The fields registrars ask for, from a DS line `zone. ttl IN DS tag alg digest-type digest`. */
function dsFields(ds: string) {
  const [, , , , tag, alg, digestType, digest] = ds.split(/\s+/);
  return { tag, alg, digestType, digest };
}

function RegistrarSteps({ d }: { d: Dnssec }) {
  const first = d.ds[0] ? dsFields(d.ds[0]) : null;
  return (
    <>
      <CopyBlock label="DS record for your registrar" text={d.ds.join('\n')} />
      {first && (
        <dl class="facts">
          <dt>Key tag</dt>
          <dd>
            <code>{first.tag}</code>
          </dd>
          <dt>Algorithm</dt>
          <dd>
            <code>{first.alg}</code>
          </dd>
          <dt>Digest type</dt>
          <dd>
            <code>{first.digestType}</code> (SHA-256)
          </dd>
          <dt>Digest</dt>
          <dd>
            <code class="break">{first.digest}</code>
          </dd>
        </dl>
      )}
    </>
  );
}

/** What the user must do at the registrar, for each state. */
function NextStep({ d }: { d: Dnssec }) {
  if (d.state === 'signed')
    return (
      <>
        <p>
          The zone is signed. Add this DS record in your registrar's DNSSEC settings (most ask for the key tag,
          algorithm, digest type and digest). Until the DS is at the registrar, resolvers treat the zone as unsigned.
        </p>
        <RegistrarSteps d={d} />
      </>
    );
  if (d.state === 'rolling')
    return d.cds_published ? (
      <>
        <p>
          The new key signs the zone. Replace the DS record at your registrar with the one below. Registrars that read
          CDS records do this by themselves. The old key is removed once the registrar shows only the new DS.
        </p>
        <RegistrarSteps d={d} />
      </>
    ) : (
      <p>A new key is being published. Nothing to do yet: the DS record to use will appear here.</p>
    );
  if (d.state === 'unsigning')
    return (
      <p>
        Remove the DS record for <code>{d.zone}</code> at your registrar (registrars that read CDS records do this by
        themselves). The zone stays signed until the DS is gone, so it keeps resolving; the service checks every hour.
      </p>
    );
  return (
    <p>
      DNSSEC lets resolvers check that answers for this zone come from you, unaltered. Turn it on, then add the DS
      record it gives you at your registrar.
    </p>
  );
}

/** DNSSEC of one zone: state, keys, the DS to copy, rollover and turning off (contract §17). */
export function DnssecCard({ zone }: { zone: string }) {
  const path = `/zones/${seg(zone)}/dnssec`;
  const dnssec = useResource(() => api.get<Dnssec>(path), [zone]);
  const [algorithm, setAlgorithm] = useState('13');
  const set = useAction(async (enabled: boolean) => {
    await api.put<Dnssec>(path, enabled ? { enabled, algorithm: Number(algorithm) } : { enabled });
    await dnssec.reload();
  });
  const rollover = useAction(async () => {
    await api.post<Dnssec>(`${path}/rollover`);
    await dnssec.reload();
  });
  return (
    <section class="card" aria-labelledby="dnssec">
      <h2 id="dnssec">DNSSEC</h2>
      <Loaded resource={dnssec}>
        {(d) => (
          <div class="stack">
            <p>
              <span class={`status ${STATE_LABEL[d.state][1]}`}>{STATE_LABEL[d.state][0]}</span>
              {d.state !== 'unsigned' && <> — algorithm {d.algorithm}</>}
            </p>
            <NextStep d={d} />
            {d.keys.length > 0 && (
              <DataTable
                caption="Signing keys"
                rows={d.keys}
                rowKey={(k) => String(k.key_tag)}
                empty="No keys."
                columns={[
                  { header: 'Key tag', cell: (k) => <code>{k.key_tag}</code> },
                  { header: 'Role', cell: (k) => k.role.toUpperCase() },
                  { header: 'State', cell: (k) => k.state },
                  { header: 'Created', cell: (k) => dateTime(k.created_at) },
                ]}
              />
            )}
            <ErrorNotice error={set.error ?? rollover.error} />
            {d.state === 'unsigned' && (
              <>
                <SelectField label="Algorithm" value={algorithm} onValue={setAlgorithm} options={ALGORITHMS} />
                <button type="button" disabled={set.busy} onClick={() => void set.run(true)}>
                  {set.busy ? 'Signing…' : 'Turn on DNSSEC'}
                </button>
              </>
            )}
            {d.state === 'unsigning' && (
              <button type="button" disabled={set.busy} onClick={() => void set.run(true)}>
                Keep DNSSEC on
              </button>
            )}
            {(d.state === 'signed' || d.state === 'rolling') && (
              <span class="button-row">
                <button
                  type="button"
                  class="button-secondary"
                  disabled={rollover.busy || d.state === 'rolling'}
                  onClick={() => void rollover.run()}
                >
                  {rollover.busy ? 'Starting…' : 'Start key rollover'}
                </button>
                <ConfirmButton
                  label="Turn off DNSSEC"
                  confirmLabel={`Turn off DNSSEC for ${d.zone}`}
                  busy={set.busy}
                  onConfirm={() => void set.run(false)}
                />
              </span>
            )}
          </div>
        )}
      </Loaded>
    </section>
  );
}
