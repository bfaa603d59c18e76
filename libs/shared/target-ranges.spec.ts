import { refusedRange, targetProblem } from './target-ranges';

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
});
