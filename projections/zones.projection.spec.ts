import { project } from '../libs/projection-engine/projection-harness';
import { ZoneEvent } from '../libs/zones/domain/zone.events';
import { ZONES, zonesProjection } from './zones.projection';

const www = { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.1'] };
const mail = { subname: '', type: 'MX', ttl: 300, records: ['10 mx.example.test.'] };

describe('zones projection', () => {
  it('given a zone imported, changed and verified (and another deleted): the live zone with its RRsets; replaying changes nothing', async () => {
    const imported = (id: string, name: string): ZoneEvent => ({
      type: 'ZoneImported',
      data: {
        zone_id: id,
        account_id: 7,
        name,
        verification_token: 'tok',
        nameservers: ['ns1.test.'],
        rrsets: [www],
        created_at: '2026-03-01T00:00:00Z',
      },
    });
    const h = await project<ZoneEvent>(zonesProjection, [
      imported('z1', 'shop.example.test'),
      imported('z2', 'gone.test'),
      // Adds the MX, deletes www (records: []).
      {
        type: 'ZoneRRsetsChanged',
        data: {
          zone_id: 'z1',
          account_id: 7,
          name: 'shop.example.test',
          rrsets: [mail, { ...www, records: [] }],
          at: 't',
        },
      },
      {
        type: 'ZoneVerified',
        data: { zone_id: 'z1', account_id: 7, name: 'shop.example.test', method: 'txt', at: '2026-03-02T00:00:00Z' },
      },
      { type: 'ZoneDeleted', data: { zone_id: 'z2', account_id: 7, name: 'gone.test', at: 't' } },
    ]);
    const expected = [
      {
        _id: 'z1',
        id: 'z1',
        account_id: 7,
        name: 'shop.example.test',
        ancestors: ['example.test'],
        status: 'verified',
        verification: { record_name: '_account-dns-verify.shop.example.test', record_value: 'tok' },
        nameservers: ['ns1.test.'],
        rrsets: [mail],
        created_at: '2026-03-01T00:00:00Z',
        verified_at: '2026-03-02T00:00:00Z',
        verified_by: 'txt',
      },
    ];
    expect(await h.documents(ZONES)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(ZONES)).toEqual(expected);
    await h.close();
  });
});
