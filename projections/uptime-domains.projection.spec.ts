import { DomainEventUnion } from '../libs/domains/domain/domain.events';
import { project } from '../libs/projection-engine/projection-harness';
import { EmbeddedReadStore } from '../libs/readstore/embedded/embedded-read-store';
import { unpackBuckets } from '../libs/uptime/domain/history';
import { CheckRecorded, MonitorEvent } from '../libs/uptime/domain/uptime.events';
import { UPTIME_DOMAINS, UptimeDomainDoc, uptimeDomainsProjection } from './uptime-domains.projection';

const check = (at: string, isUp: boolean): CheckRecorded => ({
  type: 'CheckRecorded',
  data: {
    domain_id: 1,
    account_id: 7,
    checked_at: at,
    is_up: isUp,
    response_time_ms: isUp ? 12 : null,
    error: isUp ? null : 'timeout',
    ip: '192.0.2.7',
    port: 443,
  },
});

/** The host every case starts from. */
const created = {
  type: 'DomainCreated',
  data: {
    domain_id: 1,
    account_id: 7,
    fqdn: 'home.dyn.test',
    record_type: 'A',
    record_ip: '192.0.2.1',
    ttl: 60,
    created_at: 't0',
  },
} as const;

describe('uptime projection', () => {
  it('given a host created, monitored, readdressed and checked: its target, last check and history; replaying changes nothing', async () => {
    const h = await project<DomainEventUnion | MonitorEvent | CheckRecorded>(uptimeDomainsProjection, [
      created,
      {
        type: 'MonitorEnabled',
        data: { account_id: 7, domain_id: 1, fqdn: 'home.dyn.test', at: '2026-03-01T00:00:00Z' },
      },
      {
        type: 'DomainAddressesChanged',
        data: {
          domain_id: 1,
          account_id: 7,
          fqdn: 'home.dyn.test',
          addresses: { ipv4: '192.0.2.7', ipv6: null },
          source: 'ddns',
          at: 't',
        },
      },
      check('2026-03-01T10:00:00.000Z', true),
      check('2026-03-01T10:05:00.000Z', false),
      // A late check (older than the one shown) counts in history without replacing the status.
      check('2026-03-01T10:01:00.000Z', true),
    ]);
    const [doc] = await h.documents(UPTIME_DOMAINS);
    expect(doc).toMatchObject({
      _id: 1,
      fqdn: 'home.dyn.test',
      ipv4: '192.0.2.7',
      monitor_enabled: true,
      enabled_at: '2026-03-01T00:00:00Z',
      deleted: false,
      target_pos: 3,
      last: { at: '2026-03-01T10:05:00.000Z', is_up: false, response_time_ms: null, error: 'timeout' },
    });
    expect(unpackBuckets(doc.hourly)).toEqual([{ t: '2026-03-01T10:00:00Z', checks: 3, up: 2, rt_sum: 24, rt_n: 2 }]);
    expect(unpackBuckets(doc.daily)).toEqual([{ t: '2026-03-01', checks: 3, up: 2, rt_sum: 24, rt_n: 2 }]);
    await h.replayed();
    expect(await h.documents(UPTIME_DOMAINS)).toEqual([doc]);
    await h.close();
  });

  it('an address change of an unmonitored host keeps its target position; once monitored, a change moves it', async () => {
    const readdressed = (ipv4: string): DomainEventUnion => ({
      type: 'DomainAddressesChanged',
      data: {
        domain_id: 1,
        account_id: 7,
        fqdn: 'home.dyn.test',
        addresses: { ipv4, ipv6: null },
        source: 'ddns',
        at: 't',
      },
    });
    const h = await project<DomainEventUnion | MonitorEvent>(uptimeDomainsProjection, [
      created,
      readdressed('192.0.2.2'),
      readdressed('192.0.2.3'),
    ]);
    const [unmonitored] = await h.documents(UPTIME_DOMAINS);
    expect(unmonitored).toMatchObject({ ipv4: '192.0.2.3', monitor_enabled: false, target_pos: 1 });
    await h.replayed();
    expect(await h.documents(UPTIME_DOMAINS)).toEqual([unmonitored]);
    await h.close();

    const monitored = await project<DomainEventUnion | MonitorEvent>(uptimeDomainsProjection, [
      created,
      readdressed('192.0.2.2'),
      {
        type: 'MonitorEnabled',
        data: { account_id: 7, domain_id: 1, fqdn: 'home.dyn.test', at: '2026-03-01T00:00:00Z' },
      },
      readdressed('192.0.2.4'),
      {
        type: 'MonitorDisabled',
        data: { account_id: 7, domain_id: 1, fqdn: 'home.dyn.test', reason: 'user', at: 't' },
      },
      readdressed('192.0.2.5'),
    ]);
    const [doc] = await monitored.documents(UPTIME_DOMAINS);
    // The change while monitored (4) moved it, the toggle off (5) too; the change after it (6) did not.
    expect(doc).toMatchObject({ ipv4: '192.0.2.5', monitor_enabled: false, target_pos: 5 });
    await monitored.replayed();
    expect(await monitored.documents(UPTIME_DOMAINS)).toEqual([doc]);
    await monitored.close();
  });

  it('a document projected before packing (history as arrays) is read as such and packed by its next check', async () => {
    const store = new EmbeddedReadStore({ file: ':memory:', writer: 'inline' });
    const docs = store.collection<UptimeDomainDoc>(UPTIME_DOMAINS.name);
    await docs.insertOne({
      _id: 1,
      domain_id: 1,
      account_id: 7,
      fqdn: 'home.dyn.test',
      ipv4: '192.0.2.7',
      ipv6: null,
      monitor_enabled: true,
      enabled_at: '2026-02-27T00:00:00Z',
      deleted: false,
      target_pos: 2,
      last: null,
      hourly: [{ t: '2026-03-01T10:00:00Z', checks: 2, up: 2, rt_sum: 20, rt_n: 2 }],
      daily: [
        { t: '2026-02-28', checks: 288, up: 287 },
        { t: '2026-03-01', checks: 2, up: 2, rt_sum: 20, rt_n: 2 },
      ],
      _pos: 2,
    });
    const { data } = check('2026-03-01T10:10:00.000Z', true);
    const event = {
      id: 'e3',
      streamId: 'uptime-1',
      revision: 0,
      type: 'CheckRecorded',
      data,
      metadata: {},
      position: { commit: 3n, prepare: 3n },
      created: new Date(0),
    };
    await uptimeDomainsProjection.apply(event, { position: 3, firstDelivery: false, collection: () => docs as never });
    const doc = (await docs.findOne({ _id: 1 }))!;
    expect(doc.hourly).toBe('2026-03-01T10:00:00Z,3,3,32,3');
    expect(unpackBuckets(doc.daily)).toEqual([
      { t: '2026-02-28', checks: 288, up: 287 },
      { t: '2026-03-01', checks: 3, up: 3, rt_sum: 32, rt_n: 3 },
    ]);
    await store.close();
  });
});
