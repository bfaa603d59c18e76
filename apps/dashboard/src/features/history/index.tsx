import { seg } from '../../api/client';
import { Link } from '../../app/link';
import type { ScreenDef, ScreenProps } from '../../app/screen';
import { HistoryList } from './changes';

export { UndoLastChange } from './undo';
export { removesValues } from './diff';

function ZoneHistoryScreen({ params }: ScreenProps) {
  return (
    <div class="stack">
      <section class="card" aria-labelledby="zone-history">
        <h2 id="zone-history">Changes, newest first</h2>
        <p class="hint">
          Every change to the records of <Link to={`/zones/${seg(params.zone)}`}>{params.zone}</Link>, who made it and
          what it changed. Restoring brings all records back to how they were right after a change, in one new change.
        </p>
        <HistoryList path={`/zones/${seg(params.zone)}`} subject={params.zone} restorable />
      </section>
    </div>
  );
}

/** `www A` → the RRset; `@` is the apex. */
const parseRecord = (label: string) => {
  const [name, type] = label.split(' ');
  return { subname: name === '@' ? '' : name, type };
};

/** One RRset's history (issue 27, "per-record history"): the zone's changes that touched it. */
function RecordHistoryScreen({ params }: ScreenProps) {
  const record = parseRecord(params.record);
  return (
    <div class="stack">
      <section class="card" aria-labelledby="record-history">
        <h2 id="record-history">Changes of this record set, newest first</h2>
        <p class="hint">
          Every change to <code>{params.record}</code> in <Link to={`/zones/${seg(params.zone)}`}>{params.zone}</Link>{' '}
          among the zone's changes loaded. Restoring brings all records of the zone back to how they were right after
          that change; <Link to={`/zones/${seg(params.zone)}/history`}>the whole zone's history</Link> shows the rest.
        </p>
        <HistoryList
          path={`/zones/${seg(params.zone)}`}
          subject={`${params.record} in ${params.zone}`}
          restorable
          record={record}
        />
      </section>
    </div>
  );
}

function HostHistoryScreen({ params }: ScreenProps) {
  return (
    <div class="stack">
      <section class="card" aria-labelledby="host-history">
        <h2 id="host-history">Address and TTL changes, newest first</h2>
        <p class="hint">
          Every address and TTL change of <Link to={`/ddns/${seg(params.fqdn)}`}>{params.fqdn}</Link>, by the API or an
          update client.
        </p>
        <HistoryList path={`/api/domains/fqdn/${seg(params.fqdn)}`} subject={params.fqdn} restorable />
      </section>
    </div>
  );
}

export const historyScreens: ScreenDef[] = [
  { path: '/zones/:zone/history', title: (p) => `History of ${p.zone}`, component: ZoneHistoryScreen },
  {
    path: '/zones/:zone/history/:record',
    title: (p) => `History of ${p.record} in ${p.zone}`,
    component: RecordHistoryScreen,
  },
  { path: '/ddns/:fqdn/history', title: (p) => `History of ${p.fqdn}`, component: HostHistoryScreen },
];
