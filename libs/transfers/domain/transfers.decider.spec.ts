import { specFor } from '../../shared/testing/decider-spec';
import { MAX_SECONDARIES_PER_ZONE, secondariesDecider, SecondariesCommand } from './secondaries.decider';
import { SecondaryAdded, TsigKeyCreated } from './transfer.events';
import { PLAN_LIMITS } from '../../accounts/domain/plan-limits';
import { tsigKeyringDecider, TsigKeyringCommand } from './tsig-keyring.decider';

const AT = '2026-01-01T00:00:00.000Z';
const create = (over: Partial<Extract<TsigKeyringCommand, { type: 'CreateTsigKey' }>> = {}): TsigKeyringCommand => ({
  type: 'CreateTsigKey',
  accountId: 1,
  plan: 'pro',
  keyId: 'k1',
  name: 'xfr.example.com',
  algorithm: 'hmac-sha256',
  purpose: 'transfer',
  zones: [{ zone_id: 'z1', name: 'example.com' }],
  allow: [],
  secretSealed: 'v1.sealed',
  at: AT,
  ...over,
});
const created = (id: string): TsigKeyCreated => ({
  type: 'TsigKeyCreated',
  data: {
    key_id: id,
    account_id: 1,
    name: `${id}.example.com`,
    algorithm: 'hmac-sha256',
    purpose: 'transfer',
    zones: [],
    allow: [],
    secret_sealed: 's',
    created_at: AT,
  },
});

describe('TSIG keyring decider', () => {
  const spec = specFor(tsigKeyringDecider);

  it('creates a key with its sealed secret; update limits only on update keys', () => {
    spec
      .given([])
      .when(create({ allow: [{ name: 'www', types: ['A'] }] }))
      .then([
        {
          type: 'TsigKeyCreated',
          data: {
            key_id: 'k1',
            account_id: 1,
            name: 'xfr.example.com',
            algorithm: 'hmac-sha256',
            purpose: 'transfer',
            zones: [{ zone_id: 'z1', name: 'example.com' }],
            allow: [],
            secret_sealed: 'v1.sealed',
            created_at: AT,
          },
        },
      ]);
  });

  it('needs Pro or Elite, and stops at the plan limit', () => {
    spec
      .given([])
      .when(create({ plan: 'plus' }))
      .thenFails(403, 'plan_required');
    const full = Array.from({ length: PLAN_LIMITS.pro.tsigKeys! }, (_, i) => created(`k${i}`));
    spec
      .given(full)
      .when(create({ keyId: 'new' }))
      .thenFails(403, 'limit_reached');
    spec
      .given(full)
      .when(create({ keyId: 'new', plan: 'elite' }))
      .then([expect.objectContaining({ type: 'TsigKeyCreated' }) as never]);
  });

  it('deletes a key of the account; an unknown one is 404', () => {
    spec
      .given([created('k1')])
      .when({ type: 'DeleteTsigKey', accountId: 1, keyId: 'k1', at: AT })
      .then([{ type: 'TsigKeyDeleted', data: { key_id: 'k1', account_id: 1, name: 'k1.example.com', at: AT } }]);
    spec.given([]).when({ type: 'DeleteTsigKey', accountId: 1, keyId: 'k1', at: AT }).thenFails(404, 'not_found');
  });
});

describe('secondaries decider', () => {
  const spec = specFor(secondariesDecider);
  const add = (over: Partial<Extract<SecondariesCommand, { type: 'AddSecondary' }>> = {}): SecondariesCommand => ({
    type: 'AddSecondary',
    plan: 'pro',
    accountId: 1,
    zoneId: 'z1',
    zoneName: 'example.com',
    secondaryId: 's1',
    address: '192.0.2.53',
    port: 53,
    key: { name: 'xfr.example.com', purpose: 'transfer' },
    at: AT,
    ...over,
  });
  const added = (id: string, address: string): SecondaryAdded => ({
    type: 'SecondaryAdded',
    data: {
      secondary_id: id,
      zone_id: 'z1',
      zone_name: 'example.com',
      account_id: 1,
      address,
      port: 53,
      tsig_key: 'xfr.example.com',
      at: AT,
    },
  });

  it('adds a secondary with a transfer key of the account', () => {
    spec
      .given([])
      .when(add())
      .then([added('s1', '192.0.2.53')]);
  });

  it('refuses update keys, unknown keys, duplicates, free plans and more than the limit', () => {
    spec
      .given([])
      .when(add({ key: { name: 'u', purpose: 'update' } }))
      .thenFails(400, /not a transfer key/);
    spec
      .given([])
      .when(add({ key: null }))
      .thenFails(400, /not a transfer key/);
    spec
      .given([])
      .when(add({ plan: 'free' }))
      .thenFails(403, 'plan_required');
    spec
      .given([added('s0', '192.0.2.53')])
      .when(add())
      .thenFails(409, 'secondary_exists');
    const full = Array.from({ length: MAX_SECONDARIES_PER_ZONE }, (_, i) => added(`s${i}`, `192.0.2.${i + 100}`));
    spec.given(full).when(add()).thenFails(403, 'limit_reached');
  });

  it('removes a secondary; an unknown one is 404', () => {
    spec
      .given([added('s1', '192.0.2.53')])
      .when({ type: 'RemoveSecondary', accountId: 1, zoneId: 'z1', zoneName: 'example.com', secondaryId: 's1', at: AT })
      .then([
        {
          type: 'SecondaryRemoved',
          data: { secondary_id: 's1', zone_id: 'z1', zone_name: 'example.com', account_id: 1, at: AT },
        },
      ]);
    spec
      .given([])
      .when({ type: 'RemoveSecondary', accountId: 1, zoneId: 'z1', zoneName: 'example.com', secondaryId: 's1', at: AT })
      .thenFails(404, 'not_found');
  });
});
