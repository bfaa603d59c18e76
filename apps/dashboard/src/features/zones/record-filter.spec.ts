import { describe, expect, it } from '@jest/globals';
import type { RRset } from '../../api/types';
import { filterRRsets } from './record-filter';

const zone: RRset[] = [
  { subname: '', type: 'A', ttl: 300, records: ['192.0.2.1'] },
  { subname: '', type: 'MX', ttl: 300, records: ['10 mail.example.com.'] },
  { subname: 'mail', type: 'A', ttl: 300, records: ['192.0.2.25'] },
  { subname: 'www', type: 'CNAME', ttl: 300, records: ['example.com.'] },
];

describe('record search', () => {
  it('matches every word in the name, type or values, any case; @ finds the apex', () => {
    expect(filterRRsets(zone, 'MAIL', '').map((r) => `${r.subname}/${r.type}`)).toEqual(['/MX', 'mail/A']);
    expect(filterRRsets(zone, 'mail a', '').map((r) => `${r.subname}/${r.type}`)).toEqual(['/MX', 'mail/A']);
    expect(filterRRsets(zone, '192.0.2.25', '')).toEqual([zone[2]]);
    expect(filterRRsets(zone, '@', '').length).toBe(2);
    expect(filterRRsets(zone, '', 'A').length).toBe(2);
    expect(filterRRsets(zone, 'mail', 'A')).toEqual([zone[2]]);
    expect(filterRRsets(zone, '', '')).toEqual(zone);
  });
});
