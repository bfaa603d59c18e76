import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';
import type { ApiKey, AuditEntry } from '../../api/types';
import type { Certificate } from '../certificates/types';
import type { ScreenDef, ScreenProps } from '../../app/screen';
import { dateTime } from '../../components/format';
import { ErrorNotice, Loading } from '../../components/notices';
import { useLive } from '../../components/live';
import { useAction } from '../../components/resource';
import { DataTable } from '../../components/table';
import { actorName, Change, changesOf } from './readable';

/** The audit export (contract §19): the whole history, streamed. */
const EXPORT_PATH = '/account/audit/export';

const ACRONYMS: Record<string, string> = { Api: 'API', Totp: 'TOTP', Rrsets: 'RRsets', Ddns: 'DDNS', Dns: 'DNS' };

/** `ApiKeyCreated` → "API key created". */
const humanType = (t: string) =>
  t
    .split(/(?<=[a-z0-9])(?=[A-Z])/)
    .map((w, i) => ACRONYMS[w] ?? (i === 0 ? w : w.toLowerCase()))
    .join(' ');

/**
 * What the entry is about, in a few fields: names, types, plans. Ids and timestamps repeat
 * what the other columns say, and redacted secrets say nothing.
 */
function summary(data: Record<string, unknown>): string {
  // PEM blocks (a certificate and its chain) and other long texts say nothing in a table cell.
  const scalar = Object.entries(data ?? {}).filter(
    ([, v]) =>
      v !== null &&
      typeof v !== 'object' &&
      v !== '[redacted]' &&
      !(typeof v === 'string' && (v.includes('-----BEGIN') || v.length > 200)),
  );
  const telling = scalar.filter(([k]) => !k.endsWith('_id') && !k.endsWith('_at') && k !== 'at');
  return (telling.length ? telling : scalar)
    .slice(0, 4)
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${String(v)}`)
    .join(' · ');
}

/** A certificate's names by id, from the certificates list (the issuing event holds only the PEM). */
type CertificateNames = Map<string, string[]>;

/** "Certificate issued": the names, the expiry and the serial instead of the PEM files. */
function certificateSummary(data: Record<string, unknown>, names: CertificateNames): string {
  const of = names.get(String(data.certificate_id));
  return [
    of && `names: ${of.join(', ')}`,
    `expires: ${dateTime(data.expires_at as string)}`,
    `serial: ${String(data.serial)}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

const details = (e: AuditEntry, names: CertificateNames) =>
  e.type === 'CertificateIssued' ? certificateSummary(e.data, names) : summary(e.data);

async function certificateNames(entries: AuditEntry[]): Promise<CertificateNames> {
  if (!entries.some((e) => e.type === 'CertificateIssued')) return new Map();
  try {
    const list = await api.get<{ certificates: Certificate[] }>('/certificates');
    return new Map(list.certificates.map((c) => [c.id, [...new Set([c.domain, ...c.sans])]]));
  } catch {
    return new Map(); // a plan without certificates, or none left: the entry still shows expiry and serial
  }
}

/** A change as before → after: the old value deleted (struck through), the new one inserted. */
function Diff({ changes }: { changes: Change[] }) {
  return (
    <ul class="diff">
      {changes.map((c) => (
        <li key={c.what}>
          <span class="diff-what">{c.what}</span>{' '}
          {c.before !== null && (
            <>
              <del>{c.before}</del> →{' '}
            </>
          )}
          <ins>{c.after}</ins>
        </li>
      ))}
    </ul>
  );
}

/** The account's key names by id, to name keys that acted; none where keys are not on the plan. */
async function keyNames(): Promise<Map<string, string>> {
  try {
    const { keys } = await api.get<{ keys: ApiKey[] }>('/api-keys/');
    return new Map(keys.map((k) => [k.id, k.name]));
  } catch {
    return new Map();
  }
}

function AuditScreen({ account }: ScreenProps) {
  const [keys, setKeys] = useState<Map<string, string>>(new Map());
  const [names, setNames] = useState<CertificateNames>(new Map());
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const load = useAction(async (from?: string) => {
    const page = await api.get<{ data: AuditEntry[]; next_cursor: string | null }>(
      `/account/audit?limit=50${from ? `&cursor=${encodeURIComponent(from)}` : ''}`,
    );
    const found = await certificateNames(page.data);
    setNames((prev) => new Map([...prev, ...found]));
    setEntries((prev) => (from ? [...prev, ...page.data] : page.data));
    setCursor(page.next_cursor);
  });
  useEffect(() => {
    void load.run();
    void keyNames().then(setKeys);
  }, []);
  const who = { accountId: account.id, username: account.username, keys };
  // New entries arrive at the top as they happen; the older pages already shown stay.
  useLive(['audit'], async () => {
    const page = await api.get<{ data: AuditEntry[]; next_cursor: string | null }>('/account/audit?limit=50');
    const found = await certificateNames(page.data);
    setNames((prev) => new Map([...prev, ...found]));
    setEntries((prev) => {
      const known = new Set(prev.map((e) => e.id));
      return [...page.data.filter((e) => !known.has(e.id)), ...prev];
    });
  });
  return (
    <section class="card" aria-labelledby="audit-list">
      <h2 id="audit-list">Changes to your account, newest first</h2>
      {/* Plain links: the session cookie goes with a same-origin GET, and the browser streams the file to disk. */}
      <p class="hint">
        Download export (every entry, oldest first, with its hash chain):{' '}
        <a href={`${EXPORT_PATH}?format=jsonl`} download>
          JSONL
        </a>
        {' / '}
        <a href={`${EXPORT_PATH}?format=csv`} download>
          CSV
        </a>
      </p>
      <ErrorNotice error={load.error} onRetry={() => void load.run()} />
      {cursor === undefined && !load.error ? (
        <Loading />
      ) : (
        <DataTable
          caption="Audit log"
          rows={entries}
          rowKey={(e) => e.id}
          empty="Nothing recorded yet."
          columns={[
            { header: 'When', cell: (e) => <span class="nowrap">{dateTime(e.occurred_at)}</span> },
            { header: 'What', cell: (e) => humanType(e.type) },
            {
              header: 'Details',
              cell: (e, i) => {
                const changes = changesOf(e, entries.slice(i + 1));
                return changes.length ? <Diff changes={changes} /> : <span class="details">{details(e, names)}</span>;
              },
            },
            { header: 'By', cell: (e) => actorName(e.actor, who) },
            { header: 'From', cell: (e) => e.source_ip ?? '—' },
          ]}
        />
      )}
      {cursor && (
        <button type="button" class="button-secondary" disabled={load.busy} onClick={() => void load.run(cursor)}>
          {load.busy ? 'Loading…' : 'Show older entries'}
        </button>
      )}
    </section>
  );
}

export const auditScreens: ScreenDef[] = [
  { path: '/audit', title: 'Audit log', nav: { label: 'Audit log', order: 90 }, component: AuditScreen },
];
