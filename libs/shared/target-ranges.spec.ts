import ipaddr from 'ipaddr.js';
import { refusedRange, refusedRangeOfAnyForm, targetProblem } from './target-ranges';

describe('refusedRange (contract §16: uptime targets and DDNS addresses)', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique local'],
    ['fc12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1::1', 'NAT64'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'],
  ])('refuses %s (%s)', (address, words) => {
    expect(refusedRange(address)).toContain(words);
  });

  it.each([
    '1.2.3.4',
    '8.8.8.8',
    '100.128.0.1',
    '172.32.0.1',
    '192.0.2.10',
    '198.51.100.7',
    '203.0.113.5',
    '2001:db8::1',
    '2606:4700::1111',
    '2002:102:304::1',
    '64:ff9b::808:808',
    '::ffff:1.2.3.4',
  ])('allows %s', (address) => {
    expect(refusedRange(address)).toBeNull();
  });

  it('lets everything through when the operator allows private targets', () => {
    expect(targetProblem('127.0.0.1', true)).toBeNull();
    expect(targetProblem('127.0.0.1', false)).toBe('a loopback address');
  });

  describe('dotted-quad IPv4 by numbers (decision 0123) answers as ipaddr.js does', () => {
    const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    const asNumber = (ip: ipaddr.IPv4) => ip.octets.reduce((n, o) => n * 256 + o, 0);
    // Every subnet ipaddr.js names, and the documentation ranges let through: first, last, and either side.
    const table = (ipaddr.IPv4.prototype as unknown as { SpecialRanges: Record<string, [ipaddr.IPv4, number][]> })
      .SpecialRanges;
    const subnets = [
      ...Object.values(table).flat(),
      ...['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'].map((c) => ipaddr.IPv4.parseCIDR(c)),
    ];
    const edges = subnets.flatMap(([net, bits]) => {
      const first = asNumber(ipaddr.IPv4.networkAddressFromCIDR(`${net.toString()}/${bits}`));
      const last = asNumber(ipaddr.IPv4.broadcastAddressFromCIDR(`${net.toString()}/${bits}`));
      return [first - 1, first, first + 1, last - 1, last, last + 1].filter((n) => n >= 0 && n <= 0xffffffff);
    });

    it('at the edges of every range of the table', () => {
      expect(subnets.length).toBeGreaterThan(20);
      for (const address of edges.map(dotted))
        expect([address, refusedRange(address)]).toEqual([address, refusedRangeOfAnyForm(address)]);
    });

    it('across the whole address space', () => {
      let seed = 28;
      const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
      const sample = Array.from({ length: 20_000 }, () => dotted(next()));
      const differing = sample.filter((a) => refusedRange(a) !== refusedRangeOfAnyForm(a));
      expect(differing).toEqual([]);
      // The sample reaches refused and allowed addresses alike.
      expect(sample.some((a) => refusedRange(a) !== null)).toBe(true);
      expect(sample.some((a) => refusedRange(a) === null)).toBe(true);
    });

    it.each([
      ['127.1', 'loopback'],
      ['0x7f.0.0.1', 'loopback'],
      ['012.0.0.1', 'private'],
      ['0177.0.0.1', 'loopback'],
    ])('leaves the other forms ipaddr.js reads (%s) to it: still refused', (address, words) => {
      expect(refusedRange(address)).toContain(words);
    });
  });
});
