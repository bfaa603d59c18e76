import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import { navigate } from '../../app/router';
import type { ScreenProps } from '../../app/screen';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { ErrorNotice, Loaded, Notice } from '../../components/notices';
import { useLive } from '../../components/live';
import { usePolling } from '../../components/poll';
import { useAction, useResource } from '../../components/resource';
import { download } from '../../components/secret';
import { DataTable } from '../../components/table';
import { namesOf } from './list';
import { CertificateStatusBadge, IN_PROGRESS, StatusSteps } from './status';
import type { Certificate, CertificateFiles, CertificateLog, CertificateLogs } from './types';

const POLL_MS = 1000;
const PEM = 'application/x-pem-file';

/** The PEM files a server needs, fetched on demand (the private key never sits in the page longer than asked). */
function Downloads({ cert }: { cert: Certificate }) {
  const [files, setFiles] = useState<CertificateFiles | null>(null);
  const fetchFiles = useAction(async () =>
    setFiles(await api.get<CertificateFiles>(`/certificates/${seg(cert.id)}/download`)),
  );
  const base = cert.domain;
  if (!files)
    return (
      <>
        <ErrorNotice error={fetchFiles.error} />
        <button
          type="button"
          onClick={() => void fetchFiles.run()}
          disabled={fetchFiles.busy}
          aria-busy={fetchFiles.busy}
        >
          {fetchFiles.busy ? 'Fetching…' : 'Get the PEM files'}
        </button>
      </>
    );
  return (
    <div class="stack">
      <p class="hint">Install the full chain and the private key on your server. Keep the private key secret.</p>
      <div class="button-row">
        <button
          type="button"
          class="button-secondary"
          onClick={() => download(`${base}.crt.pem`, files.certificate_pem, PEM)}
        >
          Download certificate
        </button>
        <button
          type="button"
          class="button-secondary"
          onClick={() => download(`${base}.chain.pem`, files.chain_pem, PEM)}
        >
          Download chain
        </button>
        <button
          type="button"
          class="button-secondary"
          onClick={() =>
            download(`${base}.fullchain.pem`, files.certificate_pem.trimEnd() + '\n' + files.chain_pem, PEM)
          }
        >
          Download full chain
        </button>
        <button
          type="button"
          class="button-secondary"
          onClick={() => download(`${base}.key.pem`, files.private_key_pem, PEM)}
        >
          Download private key
        </button>
      </div>
    </div>
  );
}

function Logs({ logs }: { logs: CertificateLog[] }) {
  return (
    <DataTable
      caption="Certificate log"
      rows={[...logs].reverse()}
      rowKey={(l) => `${l.at}-${l.message}`}
      empty="Nothing logged yet."
      columns={[
        { header: 'Time', cell: (l) => dateTime(l.at) },
        {
          header: 'Level',
          cell: (l) => (
            <span
              class={
                l.level === 'error'
                  ? 'status status-bad'
                  : l.level === 'warn'
                    ? 'status status-warn'
                    : 'status status-off'
              }
            >
              {l.level}
            </span>
          ),
        },
        { header: 'Message', cell: (l) => <span class="details">{l.message}</span> },
      ]}
    />
  );
}

export function CertificateScreen({ params, account }: ScreenProps) {
  const path = `/certificates/${seg(params.id)}`;
  const cert = useResource(() => api.get<Certificate>(path), [params.id]);
  const logs = useResource(() => api.get<CertificateLogs>(`${path}/logs`), [params.id]);
  const working = cert.data !== undefined && IN_PROGRESS.includes(cert.data.status);
  usePolling(working, POLL_MS, () => Promise.all([cert.reload(), logs.reload()]));
  // Issued, failed, renewed or expired while the page is open: the server says so.
  useLive(
    ['certificates'],
    () => Promise.all([cert.reload(), logs.reload()]),
    (c) => c.ref === undefined || c.ref === params.id,
  );
  const act = useAction(async (change: () => Promise<Certificate | void>) => {
    const answer = await change();
    if (answer) cert.set(answer);
    await logs.reload();
  });
  const remove = useAction(async (revoke: boolean) => {
    await api.del(`${path}${revoke ? '?revoke=true' : ''}`);
    navigate('/certificates');
  });
  const autoRenewAllowed = account.plan === 'pro' || account.plan === 'elite';
  return (
    <Loaded resource={cert}>
      {(c) => (
        <div class="stack">
          <section class="card" aria-labelledby="cert-status">
            <h2 id="cert-status">{namesOf(c).join(', ')}</h2>
            <StatusSteps status={c.status} />
            <p class="visually-hidden" role="status" aria-live="polite">
              Status: {c.status}
            </p>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <CertificateStatusBadge status={c.status} />
              </dd>
              <dt>Zone</dt>
              <dd>{c.zone}</dd>
              <dt>Requested</dt>
              <dd>{dateTime(c.created_at)}</dd>
              <dt>Issued</dt>
              <dd>{dateTime(c.issued_at)}</dd>
              <dt>Expires</dt>
              <dd>{dateTime(c.expires_at)}</dd>
              <dt>Serial</dt>
              <dd>{c.serial ?? '—'}</dd>
              <dt>Automatic renewal</dt>
              <dd>{c.auto_renew ? `On${c.next_renewal_at ? `, next ${dateTime(c.next_renewal_at)}` : ''}` : 'Off'}</dd>
            </dl>
            <ErrorNotice error={act.error ?? remove.error} />
            <div class="button-row">
              {!working && (
                <button
                  type="button"
                  class="button-secondary"
                  disabled={act.busy}
                  onClick={() => void act.run(() => api.post<Certificate>(`${path}/renew`))}
                >
                  Renew now
                </button>
              )}
              {autoRenewAllowed ? (
                <button
                  type="button"
                  class="button-secondary"
                  disabled={act.busy}
                  onClick={() =>
                    void act.run(() => api.put<Certificate>(`${path}/auto-renew`, { auto_renew: !c.auto_renew }))
                  }
                >
                  {c.auto_renew ? 'Turn automatic renewal off' : 'Turn automatic renewal on'}
                </button>
              ) : (
                <span class="hint">Automatic renewal needs the Pro or Elite plan.</span>
              )}
            </div>
          </section>
          <section class="card" aria-labelledby="cert-files">
            <h2 id="cert-files">Files</h2>
            {c.status === 'issued' ? (
              <Downloads cert={c} />
            ) : (
              <Notice>The PEM files can be downloaded once the certificate is issued.</Notice>
            )}
          </section>
          <section class="card" aria-labelledby="cert-log">
            <h2 id="cert-log">Log</h2>
            <Loaded resource={logs}>{(l) => <Logs logs={l.logs} />}</Loaded>
          </section>
          <section class="card" aria-labelledby="cert-remove">
            <h2 id="cert-remove">Remove</h2>
            <p class="hint">
              Revoking tells the CA the certificate must no longer be trusted (for example after a key leak); either way
              it is deleted here.
            </p>
            <div class="button-row">
              {c.status === 'issued' && (
                <ConfirmButton
                  label="Revoke and delete"
                  confirmLabel={`Revoke ${c.domain}`}
                  busy={remove.busy}
                  onConfirm={() => void remove.run(true)}
                />
              )}
              <ConfirmButton
                label="Delete"
                confirmLabel={`Delete ${c.domain}`}
                busy={remove.busy}
                onConfirm={() => void remove.run(false)}
              />
            </div>
          </section>
        </div>
      )}
    </Loaded>
  );
}
