import { supportsReusePort } from './dgram-udp-listener';

describe('supportsReusePort', () => {
  it.each([
    ['20.20.2', false],
    ['22.11.0', false],
    ['22.12.0', true],
    ['23.0.0', false],
    ['23.1.0', true],
    ['24.0.0', true],
  ])('node %s → %s', (version, expected) => {
    expect(supportsReusePort(version)).toBe(expected);
  });
});
