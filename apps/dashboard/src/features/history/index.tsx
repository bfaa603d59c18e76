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

function HostHistoryScreen({ params }: ScreenProps) {
  return (
    <div class="stack">
      <section class="card" aria-labelledby="host-history">
        <h2 id="host-history">Address changes, newest first</h2>
        <p class="hint">
          Every address change of <Link to={`/ddns/${seg(params.fqdn)}`}>{params.fqdn}</Link>, by the API or an update
          client.
        </p>
        <HistoryList path={`/api/domains/fqdn/${seg(params.fqdn)}`} subject={params.fqdn} restorable />
      </section>
    </div>
  );
}

export const historyScreens: ScreenDef[] = [
  { path: '/zones/:zone/history', title: (p) => `History of ${p.zone}`, component: ZoneHistoryScreen },
  { path: '/ddns/:fqdn/history', title: (p) => `History of ${p.fqdn}`, component: HostHistoryScreen },
];
