import { addressChanges, hostnames } from './ddns-request';

describe('dyndns2 request parameters', () => {
  const src = '198.51.100.1';

  it('reads v4 from myip/myipv4/ip and v6 from myipv6/ipv6/myip/ip, comma lists included', () => {
    expect(addressChanges({ myip: '192.0.2.1' }, src)).toEqual({ ipv4: { kind: 'set', ip: '192.0.2.1' }, ipv6: { kind: 'keep' } });
    expect(addressChanges({ myip: '192.0.2.1,2001:DB8::1' }, src)).toEqual({
      ipv4: { kind: 'set', ip: '192.0.2.1' },
      ipv6: { kind: 'set', ip: '2001:db8::1' },
    });
    expect(addressChanges({ myipv6: '2001:db8::2' }, src)).toEqual({ ipv4: { kind: 'keep' }, ipv6: { kind: 'set', ip: '2001:db8::2' } });
  });

  it('uses the source address when no usable address is given (ddclient 3.10 sends myip=)', () => {
    expect(addressChanges({}, src).ipv4).toEqual({ kind: 'set', ip: src });
    expect(addressChanges({ myip: '' }, '::ffff:203.0.113.9').ipv4).toEqual({ kind: 'set', ip: '203.0.113.9' });
    expect(addressChanges({ myip: '' }, '2001:db8::9')).toEqual({ ipv4: { kind: 'keep' }, ipv6: { kind: 'set', ip: '2001:db8::9' } });
  });

  it('understands preserve and "-"', () => {
    expect(addressChanges({ myipv4: 'preserve', myipv6: '-' }, src)).toEqual({ ipv4: { kind: 'keep' }, ipv6: { kind: 'delete' } });
  });

  it('splits, lowercases and trims host names', () => {
    expect(hostnames({ hostname: 'A.dyn.example.net., ,b.dyn.example.net' })).toEqual(['a.dyn.example.net', 'b.dyn.example.net']);
    expect(hostnames({ hostname: ['x.example.net', 'y.example.net'] })).toEqual(['x.example.net']);
  });
});
