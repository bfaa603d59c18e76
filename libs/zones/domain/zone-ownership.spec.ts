import { specFor } from '../../shared/testing/decider-spec';
import {
  allAncestors,
  conflictMessage,
  findOwnershipConflicts,
  OverlapAllowances,
  relationOf,
  serviceConflicts,
  unallowedServiceConflicts,
  zoneAncestors,
  ZoneTreeEvent,
  zoneTreeDecider,
} from './zone-ownership';

const names = { ddnsZones: ['dyn.example.net'], nameservers: ['ns1.example.net', 'ns2.example.net'] };
const at = '2026-01-01T00:00:00.000Z';

describe('zone ownership rules', () => {
  it('relates names by labels, not by string suffix', () => {
    expect(relationOf('a.example.com', 'example.com')).toBe('under');
    expect(relationOf('example.com', 'a.example.com')).toBe('above');
    expect(relationOf('example.com', 'example.com')).toBe('equal');
    expect(relationOf('badexample.com', 'example.com')).toBeNull();
    expect(zoneAncestors('a.b.example.com')).toEqual(['b.example.com', 'example.com']);
    expect(zoneAncestors('example.com')).toEqual([]);
    expect(allAncestors('a.example.com')).toEqual(['example.com', 'com']);
  });

  it('finds conflicts with the service’s names and words them', () => {
    expect(serviceConflicts('example.net', 1, names).map(conflictMessage)).toEqual([
      "example.net is above the service's dynamic-DNS zone dyn.example.net",
      "example.net is above the service's name server ns1.example.net",
      "example.net is above the service's name server ns2.example.net",
    ]);
    expect(serviceConflicts('x.dyn.example.net', 1, names).map(conflictMessage)).toEqual([
      "x.dyn.example.net is under the service's dynamic-DNS zone dyn.example.net",
    ]);
    expect(serviceConflicts('example.org', 1, names)).toEqual([]);
  });

  it('lets an allowance lift every conflict with the service’s names but being a dynamic-DNS zone itself', () => {
    const allowances = new OverlapAllowances();
    allowances.add('example.net', 1);
    allowances.add('dyn.example.net', 1);
    expect(unallowedServiceConflicts('example.net', 1, names, allowances)).toEqual([]);
    expect(unallowedServiceConflicts('example.net', 2, names, allowances)).toHaveLength(3);
    expect(unallowedServiceConflicts('dyn.example.net', 1, names, allowances).map(conflictMessage)).toEqual([
      "dyn.example.net is the service's dynamic-DNS zone dyn.example.net",
    ]);
  });

  it('reports each pair of existing data once, against the earlier zone, skipping same-account delegation and allowed overlaps', () => {
    const zones = [
      { zone: 'alice.test', account_id: 1, created_at: '2026-01-01' },
      { zone: 'mail.alice.test', account_id: 2, created_at: '2026-01-02' },
      { zone: 'sub.alice.test', account_id: 1, created_at: '2026-01-03' },
      { zone: 'x.parent.test', account_id: 1, created_at: '2026-01-01' },
      { zone: 'parent.test', account_id: 3, created_at: '2026-01-05' },
      { zone: 'ok.alice.test', account_id: 4, created_at: '2026-01-06' },
      { zone: 'ns1.example.net', account_id: 2, created_at: '2026-01-01' },
    ];
    const allowances = new OverlapAllowances();
    allowances.add('ok.alice.test', 4);
    expect(findOwnershipConflicts(zones, names, allowances)).toEqual([
      {
        zone: 'mail.alice.test',
        account_id: 2,
        relation: 'under',
        with: { kind: 'zone', name: 'alice.test', account_id: 1 },
      },
      {
        zone: 'ns1.example.net',
        account_id: 2,
        relation: 'equal',
        with: { kind: 'nameserver', name: 'ns1.example.net', account_id: null },
      },
      {
        zone: 'parent.test',
        account_id: 3,
        relation: 'above',
        with: { kind: 'zone', name: 'x.parent.test', account_id: 1 },
      },
    ]);
  });
});

describe('zone claim tree decider', () => {
  const spec = specFor(zoneTreeDecider);
  const claimed = (tree: string, zone: string, id: string, account: number): ZoneTreeEvent => ({
    type: 'ZoneTreeClaimed',
    data: { tree, zone, zone_id: id, account_id: account, at },
  });
  const claim = (tree: string, zone: string, id: string, account: number, settled: string[] = []) =>
    ({ type: 'Claim', tree, zone, zoneId: id, accountId: account, settled, at }) as const;

  it('claims a free tree', () => {
    spec
      .given([])
      .when(claim('example.com', 'example.com', 'z1', 1))
      .then([claimed('example.com', 'example.com', 'z1', 1)]);
  });

  it('refuses a zone above another account’s zone (its claim is in the zone’s own tree)', () => {
    spec
      .given([claimed('example.com', 'x.example.com', 'z1', 1)])
      .when(claim('example.com', 'example.com', 'z2', 2))
      .thenFails(409, 'example.com is above x.example.com, a zone of another account');
  });

  it('refuses a zone under another account’s zone (the ancestor’s apex claim)', () => {
    spec
      .given([claimed('example.com', 'example.com', 'z1', 1)])
      .when(claim('example.com', 'x.example.com', 'z2', 2))
      .thenFails(409, 'x.example.com is under example.com, a zone of another account');
  });

  it('lets siblings, the same account and settled claims through', () => {
    spec
      .given([claimed('example.com', 'a.example.com', 'z1', 1)])
      .when(claim('example.com', 'b.example.com', 'z2', 2))
      .then([claimed('example.com', 'b.example.com', 'z2', 2)]);
    spec
      .given([claimed('example.com', 'example.com', 'z1', 1)])
      .when(claim('example.com', 'x.example.com', 'z2', 1))
      .then([claimed('example.com', 'x.example.com', 'z2', 1)]);
    spec
      .given([claimed('example.com', 'example.com', 'z1', 1)])
      .when(claim('example.com', 'x.example.com', 'z2', 2, ['z1']))
      .then([claimed('example.com', 'x.example.com', 'z2', 2)]);
  });

  it('releases a claim once; a released zone no longer stands against others', () => {
    const released: ZoneTreeEvent = { type: 'ZoneTreeReleased', data: { tree: 'example.com', zone_id: 'z1' } };
    spec
      .given([claimed('example.com', 'example.com', 'z1', 1)])
      .when({ type: 'Release', tree: 'example.com', zoneId: 'z1' })
      .then([released]);
    spec
      .given([claimed('example.com', 'example.com', 'z1', 1), released])
      .when({ type: 'Release', tree: 'example.com', zoneId: 'z1' })
      .then([]);
    spec
      .given([claimed('example.com', 'example.com', 'z1', 1), released])
      .when(claim('example.com', 'x.example.com', 'z2', 2))
      .then([claimed('example.com', 'x.example.com', 'z2', 2)]);
  });
});
