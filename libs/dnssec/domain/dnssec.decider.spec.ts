import { specFor } from '../../shared/testing/decider-spec';
import { DnssecCommand, dnssecDecider, NewKey } from './dnssec.decider';
import { DnssecEvent } from './dnssec.events';

const spec = specFor(dnssecDecider);
const at = '2026-01-01T00:00:00.000Z';
const zone = 'example.com';
const ref = { zone, zoneId: 'z1', at };
const base = { zone, at };
const key = (tag: number): NewKey => ({
  key_tag: tag,
  algorithm: 13,
  flags: 257,
  public_key: `pub${tag}`,
  private_key_sealed: `sealed${tag}`,
});
const window = { inception: 100, expiration: 200 };
const enable = (algorithm = 13, tag = 1): DnssecCommand => ({
  ...ref,
  type: 'EnableDnssec',
  accountId: 7,
  algorithm,
  key: key(tag),
  window,
});
const enabled: DnssecEvent[] = [
  { type: 'DnssecEnabled', data: { ...base, zone_id: 'z1', account_id: 7, algorithm: 13 } },
  {
    type: 'DnssecKeyGenerated',
    data: {
      ...base,
      key_tag: 1,
      algorithm: 13,
      flags: 257,
      role: 'csk',
      public_key: 'pub1',
      private_key_sealed: 'sealed1',
    },
  },
  { type: 'DnssecKeyPublished', data: { ...base, key_tag: 1 } },
  { type: 'DnssecKeyActivated', data: { ...base, key_tag: 1 } },
  { type: 'DnssecSignaturesRefreshed', data: { ...base, ...window } },
];
const unsigningStarted: DnssecEvent[] = [
  { type: 'DnssecUnsigningStarted', data: base },
  { type: 'DnssecCdsPublished', data: { ...base, key_tags: [], delete: true } },
];

describe('dnssec decider', () => {
  it('turns signing on with a first key that publishes and signs at once, and a signature window', () => {
    spec.given([]).when(enable()).then(enabled);
  });

  it('is idempotent when already on, refuses another algorithm and unknown ones', () => {
    spec.given(enabled).when(enable()).then([]);
    spec.given(enabled).when(enable(15)).thenFails(409, 'dnssec_algorithm_change');
    spec
      .given([])
      .when(enable(8))
      .thenFails(400, /algorithm must be 13/);
  });

  it('starts a new zone incarnation unsigned: a re-imported zone gets a fresh key', () => {
    spec
      .given(enabled)
      .when({ ...enable(), zoneId: 'z2' })
      .then(enabled.map((e) => (e.type === 'DnssecEnabled' ? { ...e, data: { ...e.data, zone_id: 'z2' } } : e)));
  });

  it('turns off in the safe order: CDS delete first, unsigned once the parent has no DS', () => {
    spec
      .given(enabled)
      .when({ ...ref, type: 'DisableDnssec', parentDs: [1] })
      .then([...unsigningStarted, { type: 'DnssecParentDsSeen', data: { ...base, key_tags: [1] } }]);
    spec
      .given([...enabled, ...unsigningStarted])
      .when({ ...ref, type: 'ObserveParentDs', parentDs: [] })
      .then([
        { type: 'DnssecParentDsSeen', data: { ...base, key_tags: [] } },
        { type: 'DnssecCdsWithdrawn', data: base },
        { type: 'DnssecDisabled', data: base },
      ]);
  });

  it('goes straight to unsigned when the parent never had a DS; a failed lookup changes nothing', () => {
    spec
      .given(enabled)
      .when({ ...ref, type: 'DisableDnssec', parentDs: [] })
      .then([
        ...unsigningStarted,
        { type: 'DnssecParentDsSeen', data: { ...base, key_tags: [] } },
        { type: 'DnssecCdsWithdrawn', data: base },
        { type: 'DnssecDisabled', data: base },
      ]);
    spec
      .given([...enabled, ...unsigningStarted])
      .when({ ...ref, type: 'ObserveParentDs', parentDs: null })
      .then([]);
  });

  it('cancels unsigning when turned on again', () => {
    spec
      .given([...enabled, ...unsigningStarted])
      .when(enable())
      .then([
        { type: 'DnssecUnsigningCancelled', data: base },
        { type: 'DnssecCdsWithdrawn', data: base },
      ]);
  });

  it('refreshes signatures only forward, and not for an unsigned zone', () => {
    spec
      .given(enabled)
      .when({ ...ref, type: 'RefreshSignatures', window: { inception: 150, expiration: 300 } })
      .then([{ type: 'DnssecSignaturesRefreshed', data: { ...base, inception: 150, expiration: 300 } }]);
    spec
      .given(enabled)
      .when({ ...ref, type: 'RefreshSignatures', window: { inception: 50, expiration: 200 } })
      .then([]);
    spec
      .given([])
      .when({ ...ref, type: 'RefreshSignatures', window })
      .then([]);
  });

  describe('rollover', () => {
    const started: DnssecEvent[] = [
      { type: 'DnssecRolloverStarted', data: { ...base, old_key_tag: 1, new_key_tag: 2 } },
      {
        type: 'DnssecKeyGenerated',
        data: {
          ...base,
          key_tag: 2,
          algorithm: 13,
          flags: 257,
          role: 'csk',
          public_key: 'pub2',
          private_key_sealed: 'sealed2',
        },
      },
      { type: 'DnssecKeyPublished', data: { ...base, key_tag: 2 } },
    ];
    const activated: DnssecEvent[] = [
      { type: 'DnssecKeyActivated', data: { ...base, key_tag: 2 } },
      { type: 'DnssecCdsPublished', data: { ...base, key_tags: [2], delete: false } },
    ];
    const retired: DnssecEvent[] = [
      { type: 'DnssecParentDsSeen', data: { ...base, key_tags: [2] } },
      { type: 'DnssecKeyRetired', data: { ...base, key_tag: 1 } },
      { type: 'DnssecCdsWithdrawn', data: base },
    ];

    it('pre-publishes the new key, then signs with both and asks for its DS', () => {
      spec
        .given(enabled)
        .when({ ...ref, type: 'StartRollover', key: key(2) })
        .then(started);
      spec
        .given([...enabled, ...started])
        .when({ ...ref, type: 'AdvanceRollover', phase: 'publishing' })
        .then(activated);
    });

    it('retires the old key only once the parent DS names the new key and not the old', () => {
      const given = [...enabled, ...started, ...activated];
      spec
        .given(given)
        .when({ ...ref, type: 'ObserveParentDs', parentDs: [1, 2] })
        .then([{ type: 'DnssecParentDsSeen', data: { ...base, key_tags: [1, 2] } }]);
      spec
        .given(given)
        .when({ ...ref, type: 'ObserveParentDs', parentDs: [2] })
        .then(retired);
      spec
        .given(given)
        .when({ ...ref, type: 'AdvanceRollover', phase: 'retiring' })
        .then([]);
    });

    it('removes the old key after the wait, and a late or repeated timer does nothing', () => {
      const given = [...enabled, ...started, ...activated, ...retired];
      spec
        .given(given)
        .when({ ...ref, type: 'AdvanceRollover', phase: 'retiring' })
        .then([
          { type: 'DnssecKeyRemoved', data: { ...base, key_tag: 1 } },
          { type: 'DnssecRolloverCompleted', data: { ...base, key_tag: 2 } },
        ]);
      spec
        .given(given)
        .when({ ...ref, type: 'AdvanceRollover', phase: 'publishing' })
        .then([]);
    });

    it('refuses a second rollover, one while unsigned or unsigning', () => {
      spec
        .given([...enabled, ...started])
        .when({ ...ref, type: 'StartRollover', key: key(3) })
        .thenFails(409, 'dnssec_rollover_in_progress');
      spec
        .given([])
        .when({ ...ref, type: 'StartRollover', key: key(3) })
        .thenFails(409, 'dnssec_not_enabled');
      spec
        .given([...enabled, ...unsigningStarted])
        .when({ ...ref, type: 'StartRollover', key: key(3) })
        .thenFails(409, 'dnssec_unsigning');
    });
  });
});
