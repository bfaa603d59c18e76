import { DomainEventUnion } from '../libs/domains/domain/domain.events';
import { project } from '../libs/projection-engine/projection-harness';
import { MonitorEvent } from '../libs/uptime/domain/uptime.events';
import { DOMAINS, domainsProjection } from './domains.projection';

const created = (id: number, fqdn: string) =>
  ({
    type: 'DomainCreated',
    data: {
      domain_id: id,
      account_id: 7,
      fqdn,
      record_type: 'AAAA',
      record_ip: '2001:db8::1',
      ttl: 60,
      created_at: '2026-03-01T00:00:00Z',
    },
  }) as const;

describe('domains projection', () => {
  it('given hosts created, readdressed, monitored and one deleted: the live hosts with their addresses; replaying changes nothing', async () => {
    const h = await project<DomainEventUnion | MonitorEvent>(domainsProjection, [
      created(1, 'home.dyn.test'),
      created(2, 'gone.dyn.test'),
      {
        type: 'DomainAddressesChanged',
        data: {
          domain_id: 1,
          account_id: 7,
          fqdn: 'home.dyn.test',
          addresses: { ipv4: '192.0.2.7', ipv6: '2001:db8::2' },
          source: 'ddns',
          at: '2026-03-02T00:00:00Z',
        },
      },
      { type: 'MonitorEnabled', data: { account_id: 7, domain_id: 1, fqdn: 'home.dyn.test', at: 't' } },
      { type: 'DomainDeleted', data: { domain_id: 2, account_id: 7, fqdn: 'gone.dyn.test', at: 't' } },
    ]);
    const expected = [
      {
        _id: 1,
        id: 1,
        account_id: 7,
        fqdn: 'home.dyn.test',
        record_type: 'AAAA',
        ttl: 60,
        monitor_enabled: true,
        addresses: { ipv4: '192.0.2.7', ipv6: '2001:db8::2' },
        created_at: '2026-03-01T00:00:00Z',
        updated_at: '2026-03-02T00:00:00Z',
      },
    ];
    expect(await h.documents(DOMAINS)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(DOMAINS)).toEqual(expected);
    await h.close();
  });
});
