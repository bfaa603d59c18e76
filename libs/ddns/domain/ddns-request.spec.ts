import { addressChanges as withPolicy, AddressChanges, BAD_IP, hostnames, Params } from './ddns-request';

/** Production default: private targets refused. */
const addressChanges = (params: Params, source: string) => withPolicy(params, source, false) as AddressChanges;

describe('dyndns2 request parameters', () => {
  const src = '198.51.100.1';

  it('reads v4 from myip/myipv4/ip and v6 from myipv6/ipv6/myip/ip, comma lists included', () => {
    expect(addressChanges({ myip: '192.0.2.1' }, src)).toEqual({
      ipv4: { kind: 'set', ip: '192.0.2.1' },
      ipv6: { kind: 'keep' },
    });
    expect(addressChanges({ myip: '192.0.2.1,2001:DB8::1' }, src)).toEqual({
      ipv4: { kind: 'set', ip: '192.0.2.1' },
      ipv6: { kind: 'set', ip: '2001:db8::1' },
    });
    expect(addressChanges({ myipv6: '2001:db8::2' }, src)).toEqual({
      ipv4: { kind: 'keep' },
      ipv6: { kind: 'set', ip: '2001:db8::2' },
    });
  });

  it('uses the source address when no usable address is given (ddclient 3.10 sends myip=)', () => {
    expect(addressChanges({}, src).ipv4).toEqual({ kind: 'set', ip: src });
    expect(addressChanges({ myip: '' }, '::ffff:203.0.113.9').ipv4).toEqual({ kind: 'set', ip: '203.0.113.9' });
    expect(addressChanges({ myip: '' }, '2001:db8::9')).toEqual({
      ipv4: { kind: 'keep' },
      ipv6: { kind: 'set', ip: '2001:db8::9' },
    });
  });

  it('understands preserve and "-"', () => {
    expect(addressChanges({ myipv4: 'preserve', myipv6: '-' }, src)).toEqual({
      ipv4: { kind: 'keep' },
      ipv6: { kind: 'delete' },
    });
  });

  it('splits, lowercases and trims host names', () => {
    expect(hostnames({ hostname: 'A.dyn.example.net., ,b.dyn.example.net' })).toEqual([
      'a.dyn.example.net',
      'b.dyn.example.net',
    ]);
    expect(hostnames({ hostname: ['x.example.net', 'y.example.net'] })).toEqual(['x.example.net']);
  });

  it('answers badip for a malformed value instead of using the source address', () => {
    for (const myip of ['not-an-ip', '1.2.3', '1.2.3.4,bogus', '2001:db8::1%eth0', '999.1.1.1']) {
      expect(withPolicy({ myip }, src, false)).toBe(BAD_IP);
      expect(withPolicy({ myip }, src, true)).toBe(BAD_IP);
    }
    expect(withPolicy({ myipv6: 'zzz', myipv4: '192.0.2.1' }, src, false)).toBe(BAD_IP);
    // An empty item of a comma list says nothing.
    expect(addressChanges({ myip: '192.0.2.1,' }, src).ipv4).toEqual({ kind: 'set', ip: '192.0.2.1' });
  });

  it('answers badip for refused ranges, the source address included, unless private targets are allowed', () => {
    for (const myip of [
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '127.0.0.1',
      '::',
      '::1',
      '169.254.169.254',
      '10.0.0.1',
      '::ffff:127.0.0.1',
      'fd00::1',
    ]) {
      expect(withPolicy({ myip }, src, false)).toBe(BAD_IP);
    }
    expect(withPolicy({}, '127.0.0.1', false)).toBe(BAD_IP);
    expect(withPolicy({ myip: '' }, '::1', false)).toBe(BAD_IP);
    expect(withPolicy({}, '127.0.0.1', true)).toEqual({
      ipv4: { kind: 'set', ip: '127.0.0.1' },
      ipv6: { kind: 'keep' },
    });
    expect(withPolicy({ myip: '10.0.0.1' }, src, true)).toEqual({
      ipv4: { kind: 'set', ip: '10.0.0.1' },
      ipv6: { kind: 'keep' },
    });
    // A refused source address does not matter when the request names its address.
    expect(withPolicy({ myip: '192.0.2.1' }, '127.0.0.1', false)).toEqual({
      ipv4: { kind: 'set', ip: '192.0.2.1' },
      ipv6: { kind: 'keep' },
    });
  });
});
