import { api } from '../../api/client';
import type { DdnsHost, UptimeRecord, Zone } from '../../api/types';
import { Link } from '../../app/link';
import { PLAN_NAMES, PLAN_ORDER, type ScreenDef, type ScreenProps } from '../../app/screen';
import { useLive } from '../../components/live';
import { Loaded } from '../../components/notices';
import { useResource } from '../../components/resource';
import type { Certificate } from '../certificates/types';
import { AlertEntry, AttentionItem, certificateProblems, hostsDown, openAlerts, zonesNotVerified } from './attention';

const SEVERITY_TEXT = { critical: 'Needs action', warning: 'Check soon' } as const;

/** A source the overview could not read is said, not silently left out (a calm list must mean calm). */
async function orUnknown<T>(what: string, read: () => Promise<T>, unknown: string[]): Promise<T | null> {
  try {
    return await read();
  } catch {
    unknown.push(what);
    return null;
  }
}

function Attention({ items, unknown }: { items: AttentionItem[]; unknown: string[] }) {
  return (
    <section class="card" aria-labelledby="attention">
      <h2 id="attention">Needs your attention</h2>
      {items.length === 0 ? (
        <p role="status">
          Nothing needs your attention: hosts are up, certificates are valid, zones are verified and no
          email-authentication alert is open.
        </p>
      ) : (
        <ul class="attention-list">
          {items.map((i) => (
            <li key={i.key} class={`attention attention-${i.severity}`}>
              <span class={`status ${i.severity === 'critical' ? 'status-bad' : 'status-warn'}`}>
                {SEVERITY_TEXT[i.severity]}
              </span>
              <span class="attention-text">{i.text}</span>
              <Link to={i.to}>{i.action}</Link>
            </li>
          ))}
        </ul>
      )}
      {unknown.length > 0 && <p class="hint">Could not be checked just now: {unknown.join(', ')}.</p>}
    </section>
  );
}

function OverviewScreen({ account }: ScreenProps) {
  const plus = PLAN_ORDER.indexOf(account.plan) >= PLAN_ORDER.indexOf('plus');
  const emailAuth = account.email_auth.tier !== 'none';
  const data = useResource(async () => {
    const unknown: string[] = [];
    const [hosts, zones, uptime, certs, alerts] = await Promise.all([
      api.get<DdnsHost[]>('/domains'),
      api.get<{ zones: Zone[] }>('/zones'),
      plus ? orUnknown('uptime', () => api.get<{ domains: UptimeRecord[] }>('/uptime/domains'), unknown) : null,
      plus ? orUnknown('certificates', () => api.get<{ certificates: Certificate[] }>('/certificates'), unknown) : null,
      emailAuth
        ? orUnknown(
            'email-authentication alerts',
            () => api.get<{ data: AlertEntry[] }>('/email-auth/events?type=alert.raised&type=alert.resolved&limit=100'),
            unknown,
          )
        : null,
    ]);
    const items = [
      ...hostsDown(uptime?.domains ?? []),
      ...certificateProblems(certs?.certificates ?? [], Date.now()),
      ...openAlerts(alerts?.data ?? []),
      ...zonesNotVerified(zones.zones),
    ].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'critical' ? -1 : 1));
    return {
      items,
      unknown,
      hosts: hosts.length,
      monitored: hosts.filter((h) => h.monitor_enabled).length,
      zones: zones.zones.length,
      verified: zones.zones.filter((z) => z.status === 'verified').length,
    };
  }, [plus, emailAuth]);
  // A host going down or a certificate failing shows here without a reload.
  useLive(['uptime', 'certificates', 'email_auth', 'zones', 'ddns'], data.reload);
  return (
    <>
      <p>
        Signed in as <strong>{account.username}</strong> ({account.email}) on the{' '}
        <strong>{PLAN_NAMES[account.plan]}</strong> plan.
      </p>
      {!account.two_factor_enabled && (
        <div class="notice notice-warning">
          <p>
            Two-factor authentication is off. <Link to="/account/security">Turn it on</Link> to protect your account.
          </p>
        </div>
      )}
      <Loaded resource={data}>
        {(c) => (
          <div class="stack">
            <Attention items={c.items} unknown={c.unknown} />
            <ul class="tiles" aria-label="Your service">
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
          </div>
        )}
      </Loaded>
    </>
  );
}

export const overviewScreens: ScreenDef[] = [
  { path: '/', title: 'Overview', nav: { label: 'Overview', order: 0 }, component: OverviewScreen },
];
