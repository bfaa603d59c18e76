import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import type { RRset, Zone } from '../../api/types';
import { Link } from '../../app/link';
import { navigate } from '../../app/router';
import type { ScreenDef, ScreenProps } from '../../app/screen';
import { ConfirmButton, ConfirmPanel } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { Form, SelectField, TextArea, TextField } from '../../components/forms';
import { filterRRsets } from './record-filter';
import { ErrorNotice, Loaded } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { CopyBlock } from '../../components/secret';
import { DataTable } from '../../components/table';
import { ChangePlan, DEFAULT_TTL, planChange, rrsetLabel, subnameOf } from './rrset-changes';
import { DnssecCard } from './dnssec';
import { ZoneSecondaries } from '../transfers';
import { removesValues, UndoLastChange } from '../history';

/** The values of an RRset, one per line, as the zone table and the removal confirmation show them. */
const RecordValues = ({ values }: { values: string[] }) => (
  <ul class="plain">
    {values.map((v) => (
      <li key={v}>
        <code>{v}</code>
      </li>
    ))}
  </ul>
);

const RR_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'DS'] as const;

const StatusBadge = ({ zone }: { zone: Zone }) =>
  zone.status === 'verified' ? (
    <span class="status status-ok">Verified</span>
  ) : (
    <span class="status status-warn">Waiting for verification</span>
  );

function ImportZone() {
  const [name, setName] = useState('');
  const [file, setFile] = useState('');
  const create = useAction(async () => {
    const zone = await api.post<Zone>('/zones', {
      name: name.trim().toLowerCase().replace(/\.$/, ''),
      ...(file.trim() ? { zone_file: file } : {}),
    });
    navigate(`/zones/${seg(zone.name)}`);
  });
  return (
    <Form
      onSubmit={() => void create.run()}
      busy={create.busy}
      error={create.error}
      submitLabel="Import zone"
      busyLabel="Importing…"
      label="Import a zone"
    >
      <TextField label="Zone name" name="name" value={name} onValue={setName} required placeholder="example.com" />
      <div class="field">
        <label for="zone-file-upload">BIND zone file (optional)</label>
        <input
          id="zone-file-upload"
          type="file"
          accept=".zone,.txt,.db,text/plain"
          onChange={async (e) => {
            const f = e.currentTarget.files?.[0];
            if (f) setFile(await f.text());
          }}
        />
      </div>
      <TextArea
        label="Zone file contents"
        name="zone_file"
        value={file}
        onValue={setFile}
        rows={8}
        spellcheck={false}
        hint="Paste a BIND master file, or choose a file above. Leave empty to start with no records."
      />
    </Form>
  );
}

function ZonesScreen(_: ScreenProps) {
  const zones = useResource(() => api.get<{ zones: Zone[] }>('/zones'));
  return (
    <div class="stack">
      <section class="card" aria-labelledby="zone-list">
        <h2 id="zone-list">Your zones</h2>
        <Loaded resource={zones}>
          {(d) => (
            <DataTable
              caption="Zones"
              rows={d.zones}
              rowKey={(z) => z.id}
              empty="No zones yet. Import one below."
              columns={[
                { header: 'Zone', cell: (z) => <Link to={`/zones/${seg(z.name)}`}>{z.name}</Link> },
                { header: 'Status', cell: (z) => <StatusBadge zone={z} /> },
                { header: 'Imported', cell: (z) => dateTime(z.created_at) },
              ]}
            />
          )}
        </Loaded>
      </section>
      <section class="card" aria-labelledby="import">
        <h2 id="import">Import a zone</h2>
        <ImportZone />
      </section>
    </div>
  );
}

/**
 * Adds records beside the zone's (merged into the RRset of that name and type) or edits one
 * RRset; a save that removes anything, a move to another name included, asks first.
 */
function RRsetEditor({
  zone,
  existing,
  initial,
  onSave,
  onCancel,
}: {
  zone: string;
  existing: RRset[];
  /** null: adding records. */
  initial: RRset | null;
  onSave: (rrsets: RRset[]) => Promise<void>;
  onCancel: () => void;
}) {
  const [subname, setSubname] = useState(initial?.subname ?? '');
  const [type, setType] = useState(initial?.type ?? 'A');
  const [ttl, setTtl] = useState(initial ? String(initial.ttl) : '');
  const [records, setRecords] = useState(initial?.records.join('\n') ?? '');
  const [pending, setPending] = useState<ChangePlan | null>(null);
  const save = useAction((plan: ChangePlan) => onSave(plan.rrsets));
  const submit = () => {
    const edited = {
      subname: subnameOf(subname, zone),
      type,
      ttl: Number(ttl),
      records: records
        .split('\n')
        .map((r) => r.trim())
        .filter(Boolean),
    };
    const plan = planChange(existing, initial, edited);
    if (plan.removals.length) setPending(plan);
    else void save.run(plan);
  };
  return (
    <Form
      onSubmit={submit}
      busy={save.busy}
      error={save.error}
      submitLabel="Save records"
      label={initial ? `Edit ${rrsetLabel(initial)}` : 'Add records'}
      actions={
        <button type="button" class="button-secondary" onClick={onCancel}>
          Cancel
        </button>
      }
    >
      <div class="form-grid">
        <TextField
          label="Name"
          name="subname"
          value={subname}
          onValue={setSubname}
          hint={
            initial
              ? 'Changing the name or type moves these records; you confirm what is removed.'
              : 'Empty or @ for the zone apex. Records are added beside any already there.'
          }
        />
        <SelectField
          label="Type"
          value={type}
          onValue={setType}
          options={RR_TYPES.map((t) => ({ value: t, label: t }))}
        />
        <TextField
          label="TTL (seconds)"
          name="ttl"
          type="number"
          min={60}
          max={86400}
          value={ttl}
          onValue={setTtl}
          required={initial !== null}
          placeholder={initial ? undefined : String(DEFAULT_TTL)}
          hint={initial ? undefined : `Empty keeps the TTL of records already there (${DEFAULT_TTL} for a new name).`}
        />
      </div>
      <TextArea
        label="Records, one per line"
        name="records"
        value={records}
        onValue={setRecords}
        rows={3}
        spellcheck={false}
        hint='Presentation format, e.g. 10 mail.example.com. for MX or "v=spf1 -all" for TXT.'
      />
      {pending && (
        <ConfirmPanel
          title={
            pending.movedTo
              ? `Move ${rrsetLabel(pending.removals[0])} to ${rrsetLabel(pending.movedTo)}? Saving removes:`
              : 'Saving removes:'
          }
          confirmLabel={pending.movedTo ? 'Move and save' : 'Remove and save'}
          busy={save.busy}
          onBack={() => setPending(null)}
          onConfirm={() => {
            const plan = pending;
            setPending(null);
            void save.run(plan);
          }}
        >
          <ul>
            {pending.removals.map((r) => (
              <li key={rrsetLabel(r)}>
                {r.whole ? 'all of ' : ''}
                <code>{rrsetLabel(r)}</code>:
                <RecordValues values={r.records} />
              </li>
            ))}
          </ul>
        </ConfirmPanel>
      )}
    </Form>
  );
}

/** Search and type filter above the records table; says how many RRsets it shows. */
function RecordFilter({
  records,
  query,
  type,
  onQuery,
  onType,
}: {
  records: RRset[];
  query: string;
  type: string;
  onQuery(v: string): void;
  onType(v: string): void;
}) {
  const types = [...new Set(records.map((r) => r.type))].sort();
  const shown = filterRRsets(records, query, type).length;
  return (
    <div class="record-filter" role="search" aria-label="Record search">
      <TextField
        label="Find records"
        name="q"
        type="search"
        value={query}
        onValue={onQuery}
        placeholder="name, type or value"
      />
      <SelectField
        label="Show only"
        value={type}
        onValue={onType}
        options={[{ value: '', label: 'All types' }, ...types.map((t) => ({ value: t, label: t }))]}
      />
      <p class="hint" role="status">
        {query || type ? `${shown} of ${records.length} record sets shown` : `${records.length} record sets`}
      </p>
    </div>
  );
}

function ZoneScreen({ params, account }: ScreenProps) {
  const path = `/zones/${seg(params.zone)}`;
  const zone = useResource(() => api.get<Zone>(path), [params.zone]);
  const [query, setQuery] = useState('');
  const [typeFilter, setTypeFilter] = useState('');
  /** The RRset being edited, `adding` for new records, null when the form is closed. */
  const [editing, setEditing] = useState<RRset | 'adding' | null>(null);
  /** After an edit that removed records: offer to undo it (history restore). */
  const [undoable, setUndoable] = useState(false);
  const verify = useAction(async () => {
    await api.post<Zone>(`${path}/verify`);
    await zone.reload();
  });
  const remove = useAction(async () => {
    await api.del(path);
    navigate('/zones');
  });
  /** One PUT: a move deletes the old RRset and writes the new one together. */
  const upsert = async (rrsets: RRset[]) => {
    const removing = removesValues(zone.data?.records ?? [], rrsets);
    await api.put(`${path}/records`, { records: rrsets });
    setUndoable(removing);
    setEditing(null);
    await zone.reload();
  };
  const removeSet = useAction((r: RRset) => upsert([{ ...r, records: [] }]));
  return (
    <Loaded resource={zone}>
      {(z) => (
        <div class="stack">
          <section class="card" aria-labelledby="verification">
            <h2 id="verification">Verification</h2>
            <p>
              <StatusBadge zone={z} /> {z.verified_at && <>since {dateTime(z.verified_at)}</>}
            </p>
            {z.status !== 'verified' && (
              <>
                <p>
                  Verified zones unlock certificates and DDNS hosts under them. Prove you control the zone in one of two
                  ways:
                </p>
                <ol>
                  <li>
                    Add this TXT record at your current DNS provider (or in the records below once the zone is delegated
                    here):
                    <CopyBlock
                      label="Verification TXT record"
                      text={`${z.verification.record_name}. 300 IN TXT "${z.verification.record_value}"`}
                    />
                  </li>
                  <li>
                    Or delegate the zone to the service's name servers:
                    <CopyBlock label="Name servers" text={z.nameservers.join('\n')} />
                  </li>
                </ol>
                <ErrorNotice error={verify.error} />
                <button type="button" disabled={verify.busy} onClick={() => void verify.run()}>
                  {verify.busy ? 'Checking…' : 'Check verification now'}
                </button>
              </>
            )}
          </section>
          <section class="card" aria-labelledby="records">
            <h2 id="records">Records</h2>
            <p class="hint">
              The service's DNS server answers with these records from the moment the zone is imported.{' '}
              <Link to={`${path}/history`}>History of the records</Link>
            </p>
            {undoable && (
              <UndoLastChange
                path={path}
                onUndone={async () => (setUndoable(false), await zone.reload())}
                onDismiss={() => setUndoable(false)}
              />
            )}
            <ErrorNotice error={removeSet.error} />
            {(z.records ?? []).length > 0 && (
              <RecordFilter
                records={z.records ?? []}
                query={query}
                type={typeFilter}
                onQuery={setQuery}
                onType={setTypeFilter}
              />
            )}
            <DataTable
              caption={`Records of ${z.name}`}
              rows={filterRRsets(z.records ?? [], query, typeFilter)}
              rowKey={(r) => `${r.subname}/${r.type}`}
              empty={query || typeFilter ? 'No records match.' : 'No records.'}
              columns={[
                { header: 'Name', cell: (r) => <code>{r.subname || '@'}</code> },
                { header: 'Type', cell: (r) => r.type },
                { header: 'TTL', cell: (r) => `${r.ttl} s`, numeric: true },
                {
                  header: 'Data',
                  cell: (r) => <RecordValues values={r.records} />,
                },
                {
                  header: 'Actions',
                  cell: (r) => (
                    <span class="button-row">
                      <button
                        type="button"
                        class="button-secondary"
                        onClick={() => setEditing(r)}
                        aria-label={`Edit ${r.subname || '@'} ${r.type}`}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        confirmLabel={`Delete ${r.subname || '@'} ${r.type}`}
                        onConfirm={() => void removeSet.run(r)}
                      />
                      <Link
                        to={`${path}/history/${seg(`${r.subname || '@'} ${r.type}`)}`}
                        aria-label={`History of ${r.subname || '@'} ${r.type}`}
                      >
                        History
                      </Link>
                    </span>
                  ),
                },
              ]}
            />
            {editing ? (
              <RRsetEditor
                key={editing === 'adding' ? 'adding' : rrsetLabel(editing)}
                zone={z.name}
                existing={z.records ?? []}
                initial={editing === 'adding' ? null : editing}
                onSave={upsert}
                onCancel={() => setEditing(null)}
              />
            ) : (
              <button type="button" onClick={() => setEditing('adding')}>
                Add records
              </button>
            )}
          </section>
          <DnssecCard zone={z.name} />
          <section class="card" aria-labelledby="export">
            <h2 id="export">Export</h2>
            <p>The zone as a BIND master file, which the import reads back unchanged.</p>
            <a class="button" href={`${path}/export`} download={`${z.name}.zone`}>
              Download zone file
            </a>
          </section>
          {(account.plan === 'pro' || account.plan === 'elite') && <ZoneSecondaries zone={z.name} />}
          <section class="card" aria-labelledby="danger">
            <h2 id="danger">Delete the zone</h2>
            <p>The DNS server stops answering for it at once.</p>
            <ErrorNotice error={remove.error} />
            <ConfirmButton
              label="Delete zone"
              confirmLabel={`Delete ${z.name}`}
              busy={remove.busy}
              onConfirm={() => void remove.run()}
            />
          </section>
        </div>
      )}
    </Loaded>
  );
}

export const zoneScreens: ScreenDef[] = [
  { path: '/zones', title: 'Zones', nav: { label: 'Zones', order: 20 }, component: ZonesScreen },
  { path: '/zones/:zone', title: (p) => p.zone, component: ZoneScreen },
];
