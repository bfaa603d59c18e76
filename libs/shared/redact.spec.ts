import { redact } from './redact';

describe('redact', () => {
  it('replaces secret fields at any depth, in a copy, leaving the input as it was', () => {
    const data = {
      zone: 'example.test',
      key: 'k',
      dkim: [{ selector: 's1', private_key: 'p' }],
      nested: { token: 't' },
    };
    const input = structuredClone(data);
    expect(redact(input)).toEqual({
      zone: 'example.test',
      key: '[redacted]',
      dkim: [{ selector: 's1', private_key: '[redacted]' }],
      nested: { token: '[redacted]' },
    });
    expect(input).toEqual(data);
  });

  it('gives back the value itself when nothing in it is secret (an address change, decision 0122)', () => {
    const data = { domain_id: 1, fqdn: 'h.example.test', addresses: { ipv4: '192.0.2.1', ipv6: null }, list: [1, 'a'] };
    expect(redact(data)).toBe(data);
    expect(redact('text')).toBe('text');
  });

  it('copies what is not a plain object as before, though nothing in it is secret (a Date becomes an empty object)', () => {
    const list = [1, 2, 3];
    delete list[1];
    const data = { at: new Date(0), list };
    const out = redact(data);
    expect(out).not.toBe(data);
    expect(out.at).toEqual({});
    expect(JSON.stringify(out)).toBe(JSON.stringify(data).replace('"1970-01-01T00:00:00.000Z"', '{}'));
  });
});
