import { describe, expect, it } from '@jest/globals';
import type { AuditEntry } from '../../api/types';
import { actorName, changesOf } from './readable';

const ctx = { accountId: 1, username: 'alice', keys: new Map([['k-1', 'router']]) };
let n = 0;
const entry = (type: string, data: Record<string, unknown>): AuditEntry => ({
  id: String(++n),
  type,
  occurred_at: '',
  stream: '',
  revision: 0,
  actor: null,
  source_ip: null,
  correlation_id: null,
  data,
});

describe('audit in words', () => {
  it('names actors: you, your keys by name, DDNS clients, the service, operators', () => {
    expect(actorName('user:1', ctx)).toBe('You (alice)');
    expect(actorName('key:k-1', ctx)).toBe('API key “router”');
    expect(actorName('key:k-9', ctx)).toBe('An API key (since revoked)');
    expect(actorName('ddns:key:k-1', ctx)).toBe('A DDNS client (API key “router”)');
    expect(actorName('system:certificates', ctx)).toBe('The service (certificates)');
    expect(actorName('operator', ctx)).toBe('An operator');
    expect(actorName(null, ctx)).toBe('—');
  });

  it('says record changes as before → after from the older entries of the same zone', () => {
    const imported = entry('ZoneImported', {
      name: 'x.example',
      rrsets: [{ subname: '', type: 'A', ttl: 300, records: ['192.0.2.1'] }],
    });
    const added = entry('ZoneRRsetsChanged', {
      name: 'x.example',
      rrsets: [{ subname: '', type: 'A', ttl: 300, records: ['192.0.2.1', '192.0.2.2'] }],
    });
    const moved = entry('ZoneRRsetsChanged', {
      name: 'x.example',
      rrsets: [
        { subname: '', type: 'A', ttl: 300, records: [] },
        { subname: 'www', type: 'A', ttl: 60, records: ['192.0.2.2'] },
      ],
    });
    expect(changesOf(moved, [added, imported])).toEqual([
      { what: '@ A', before: '192.0.2.1, 192.0.2.2 (TTL 300 s)', after: 'removed' },
      { what: 'www A', before: 'none', after: '192.0.2.2 (TTL 60 s)' },
    ]);
    // Nothing older loaded: only the new state.
    expect(changesOf(added, [])).toEqual([{ what: '@ A', before: null, after: '192.0.2.1, 192.0.2.2 (TTL 300 s)' }]);
  });

  it('says a host address change per family that changed', () => {
    const created = entry('DomainCreated', { domain_id: 7, record_type: 'A', record_ip: '192.0.2.10' });
    const changed = entry('DomainAddressesChanged', { domain_id: 7, addresses: { ipv4: '192.0.2.77', ipv6: null } });
    expect(changesOf(changed, [created])).toEqual([{ what: 'IPv4', before: '192.0.2.10', after: '192.0.2.77' }]);
  });

  it('says a host TTL change as before → after, from the creation or the previous change', () => {
    const created = entry('DomainCreated', { domain_id: 7, record_type: 'A', record_ip: '192.0.2.10', ttl: 60 });
    const first = entry('DomainTtlChanged', { domain_id: 7, ttl: 300 });
    const second = entry('DomainTtlChanged', { domain_id: 7, ttl: 120 });
    expect(changesOf(first, [created])).toEqual([{ what: 'TTL', before: '60 s', after: '300 s' }]);
    expect(changesOf(second, [first, created])).toEqual([{ what: 'TTL', before: '300 s', after: '120 s' }]);
    expect(changesOf(first, [])).toEqual([{ what: 'TTL', before: null, after: '300 s' }]);
  });
});
