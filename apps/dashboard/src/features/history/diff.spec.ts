import { describe, expect, it } from '@jest/globals';
import { recordDiff, removesValues } from './diff';

describe('history diffs', () => {
  it('shows removed and added values and a TTL change', () => {
    expect(
      recordDiff({
        subname: 'www',
        type: 'A',
        before: ['192.0.2.1', '192.0.2.2'],
        after: ['192.0.2.2', '192.0.2.3'],
        before_ttl: 300,
        after_ttl: 60,
      }),
    ).toEqual({
      removed: ['192.0.2.1'],
      added: ['192.0.2.3'],
      ttl: 'TTL 300 s → 60 s',
    });
    expect(
      recordDiff({ subname: 'www', type: 'A', before: null, after: ['192.0.2.1'], before_ttl: null, after_ttl: 300 }),
    ).toEqual({
      removed: [],
      added: ['192.0.2.1'],
      ttl: null,
    });
  });

  it('tells an edit that removes a value from one that only adds', () => {
    const zone = [{ subname: 'www', type: 'A', records: ['192.0.2.1'] }];
    expect(removesValues(zone, [{ subname: 'www', type: 'A', records: [] }])).toBe(true);
    expect(removesValues(zone, [{ subname: 'www', type: 'A', records: ['192.0.2.9'] }])).toBe(true);
    expect(removesValues(zone, [{ subname: 'www', type: 'A', records: ['192.0.2.1', '192.0.2.2'] }])).toBe(false);
    expect(removesValues(zone, [{ subname: 'new', type: 'A', records: ['192.0.2.1'] }])).toBe(false);
  });
});
