import { describe, expect, it } from '@jest/globals';
import type { RRset } from '../../api/types';
import { planChange, subnameOf } from './rrset-changes';

const zone: RRset[] = [
  { subname: '', type: 'A', ttl: 300, records: ['192.0.2.1'] },
  { subname: 'old', type: 'TXT', ttl: 300, records: ['"keep me"'] },
  { subname: 'new', type: 'TXT', ttl: 600, records: ['"already here"'] },
];

describe('what saving the record form does (issue 27, bugs 1 and 2)', () => {
  it('adds beside the RRset of that name and type, keeping its TTL unless one is typed, removing nothing', () => {
    expect(planChange(zone, null, { subname: '', type: 'A', ttl: 0, records: ['192.0.2.2', ' 192.0.2.1 '] })).toEqual({
      rrsets: [{ subname: '', type: 'A', ttl: 300, records: ['192.0.2.1', '192.0.2.2'] }],
      removals: [],
      movedTo: null,
    });
    expect(planChange(zone, null, { subname: 'www', type: 'A', ttl: 0, records: ['192.0.2.9'] }).rrsets).toEqual([
      { subname: 'www', type: 'A', ttl: 3600, records: ['192.0.2.9'] },
    ]);
    expect(planChange(zone, null, { subname: '', type: 'A', ttl: 120, records: ['192.0.2.2'] }).rrsets[0].ttl).toBe(
      120,
    );
  });

  it('names the records an edit drops, and the whole RRset when it empties it', () => {
    expect(planChange(zone, zone[0], { subname: '', type: 'A', ttl: 300, records: ['192.0.2.3'] }).removals).toEqual([
      { subname: '', type: 'A', records: ['192.0.2.1'], whole: false },
    ]);
    expect(planChange(zone, zone[0], { subname: '', type: 'A', ttl: 300, records: [] }).removals).toEqual([
      { subname: '', type: 'A', records: ['192.0.2.1'], whole: true },
    ]);
    expect(planChange(zone, zone[0], { subname: '', type: 'A', ttl: 60, records: ['192.0.2.1'] }).removals).toEqual([]);
  });

  it('moves a renamed RRset in one change: the old one emptied, the records merged at the new name', () => {
    expect(planChange(zone, zone[1], { subname: 'new', type: 'TXT', ttl: 300, records: ['"keep me"'] })).toEqual({
      rrsets: [
        { subname: 'old', type: 'TXT', ttl: 300, records: [] },
        { subname: 'new', type: 'TXT', ttl: 300, records: ['"already here"', '"keep me"'] },
      ],
      removals: [{ subname: 'old', type: 'TXT', records: ['"keep me"'], whole: true }],
      movedTo: { subname: 'new', type: 'TXT' },
    });
  });

  it('reads @, the zone name and names ending in it as subnames', () => {
    expect(['@', 'Example.com.', ' www.example.com ', 'www'].map((n) => subnameOf(n, 'example.com'))).toEqual([
      '',
      '',
      'www',
      'www',
    ]);
  });
});
