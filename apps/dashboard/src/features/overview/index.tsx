import { api } from '../../api/client';
import type { DdnsHost, Zone } from '../../api/types';
import { Link } from '../../app/link';
import { PLAN_NAMES, type ScreenDef, type ScreenProps } from '../../app/screen';
import { Loaded } from '../../components/notices';
import { useResource } from '../../components/resource';

function OverviewScreen({ account }: ScreenProps) {
  const counts = useResource(async () => {
    const [hosts, zones] = await Promise.all([api.get<DdnsHost[]>('/domains'), api.get<{ zones: Zone[] }>('/zones')]);
    return {
      hosts: hosts.length,
      monitored: hosts.filter((h) => h.monitor_enabled).length,
      zones: zones.zones.length,
      verified: zones.zones.filter((z) => z.status === 'verified').length,
    };
  });
  return (
    <>
      <p>
        Signed in as <strong>{account.username}</strong> ({account.email}) on the <strong>{PLAN_NAMES[account.plan]}</strong> plan.
      </p>
      {!account.two_factor_enabled && (
        <div class="notice notice-warning">
          <p>
            Two-factor authentication is off. <Link to="/account/security">Turn it on</Link> to protect your account.
          </p>
        </div>
      )}
      <Loaded resource={counts}>
        {(c) => (
          <ul class="tiles">
            <li class="tile">
              <span class="tile-figure">{c.hosts}</span>
              <Link to="/ddns">Dynamic DNS hosts</Link>
            </li>
            <li class="tile">
              <span class="tile-figure">
                {c.verified}/{c.zones}
              </span>
              <Link to="/zones">Zones verified</Link>
            </li>
            <li class="tile">
              <span class="tile-figure">{c.monitored}</span>
              <Link to="/uptime">Hosts monitored</Link>
            </li>
          </ul>
        )}
      </Loaded>
    </>
  );
}

export const overviewScreens: ScreenDef[] = [{ path: '/', title: 'Overview', nav: { label: 'Overview', order: 0 }, component: OverviewScreen }];
