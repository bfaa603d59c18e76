import { specFor } from '../../shared/testing/decider-spec';
import { MonitorsCommand, monitorsDecider } from './monitor.decider';
import { MonitorEvent } from './uptime.events';

const spec = specFor(monitorsDecider);
const at = '2026-01-01T00:00:00.000Z';
const enable = (
  domainId: number,
  plan: 'free' | 'plus' | 'pro' | 'elite' = 'plus',
  deletedDomainIds: number[] = [],
): MonitorsCommand => ({
  type: 'EnableMonitor',
  accountId: 1,
  plan,
  domainId,
  fqdn: `d${domainId}.dyn.example.net`,
  deletedDomainIds,
  at,
});
const disable = (domainId: number): MonitorsCommand => ({ type: 'DisableMonitor', accountId: 1, domainId, at });
const enabled = (domainId: number): MonitorEvent => ({
  type: 'MonitorEnabled',
  data: { account_id: 1, domain_id: domainId, fqdn: `d${domainId}.dyn.example.net`, at },
});
const disabled = (domainId: number, reason: 'user' | 'domain_deleted' = 'user'): MonitorEvent => ({
  type: 'MonitorDisabled',
  data: { account_id: 1, domain_id: domainId, fqdn: `d${domainId}.dyn.example.net`, reason, at },
});
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('monitors decider (one stream per account)', () => {
  it('enables a domain; enabling it again changes nothing', () => {
    spec
      .given([])
      .when(enable(7))
      .then([enabled(7)]);
    spec
      .given([enabled(7)])
      .when(enable(7))
      .then([]);
  });

  it.each([
    ['free', 5],
    ['plus', 5],
    ['pro', 50],
    ['elite', 500],
  ] as const)('allows %s up to %i monitored domains, not one more', (plan, limit) => {
    const full = range(limit).map(enabled);
    spec
      .given(full.slice(1))
      .when(enable(1, plan))
      .then([enabled(1)]);
    spec
      .given(full)
      .when(enable(limit + 1, plan))
      .thenFails(403, 'Monitoring limit reached for your plan');
  });

  it('frees a slot when a domain is disabled', () => {
    const five = range(5).map(enabled);
    spec
      .given([...five, disabled(3)])
      .when(enable(6))
      .then([enabled(6)]);
  });

  it('releases deleted domains so they no longer count', () => {
    const five = range(5).map(enabled);
    spec
      .given(five)
      .when(enable(6, 'plus', [2, 99]))
      .then([disabled(2, 'domain_deleted'), enabled(6)]);
  });

  it('disables a monitored domain; disabling an unmonitored one changes nothing', () => {
    spec
      .given([enabled(4)])
      .when(disable(4))
      .then([disabled(4)]);
    spec
      .given([enabled(4), disabled(4)])
      .when(disable(4))
      .then([]);
    spec.given([]).when(disable(4)).then([]);
  });
});
