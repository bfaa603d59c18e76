import { formatRecord, parseRecord } from './rdata';

describe('parseRecord / formatRecord', () => {
  const roundTrips: Array<[string, string, string]> = [
    ['A', '192.0.2.1', '192.0.2.1'],
    ['AAAA', '2001:DB8::1', '2001:db8::1'],
    ['CNAME', 'Target.Example.com', 'target.example.com.'],
    ['NS', 'ns1.example.net.', 'ns1.example.net.'],
    ['MX', '10 mail.example.com.', '10 mail.example.com.'],
    ['MX', '0 .', '0 .'],
    ['SRV', '10 60 5060 sip.example.com.', '10 60 5060 sip.example.com.'],
    ['CAA', '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
    ['CAA', '128 iodef mailto:security@example.com', '128 iodef "mailto:security@example.com"'],
    ['TXT', '"v=spf1 -all"', '"v=spf1 -all"'],
    ['TXT', '"part one" "part \\"two\\""', '"part one" "part \\"two\\""'],
    ['TXT', 'unquoted text here', '"unquoted text here"'],
    ['TXT', '"bytes \\000\\255"', '"bytes \\000\\255"'],
    ['txt', '"lowercase type"', '"lowercase type"'],
  ];
  it.each(roundTrips)('%s %s formats as %s', (type, text, canonical) => {
    expect(formatRecord(type, parseRecord(type, text))).toBe(canonical);
  });

  it('splits long unquoted TXT into 255-byte strings', () => {
    const data = parseRecord('TXT', 'x'.repeat(600)) as Buffer[];
    expect(data.map((s) => s.length)).toEqual([255, 255, 90]);
  });

  const rejects: Array<[string, string, RegExp]> = [
    ['A', '256.1.1.1', /dotted-quad/],
    ['A', '01.2.3.4', /dotted-quad/],
    ['A', '1.2.3.4 5.6.7.8', /expected an IPv4 address/],
    ['AAAA', '192.0.2.1', /IPv6/],
    ['AAAA', 'fe80::1%eth0', /IPv6/],
    ['CNAME', 'bad_name-.example.com', /label/],
    ['CNAME', '.', /not a host name/],
    ['NS', 'a..b', /empty label/],
    ['MX', 'mail.example.com', /expected preference, exchange/],
    ['MX', '70000 mail.example.com', /preference must be an integer 0-65535/],
    ['SRV', '1 2 port host.example.com', /port must be an integer/],
    ['CAA', '0 issue', /expected flags, tag and value/],
    ['CAA', '0 is-sue "x"', /tag/],
    ['CAA', '300 issue "x"', /flags must be an integer 0-255/],
    ['TXT', '"unterminated', /unterminated quoted string/],
    ['TXT', `"${'y'.repeat(256)}"`, /longer than 255 bytes/],
    ['TXT', '"a" b', /mixes quoted and unquoted/],
    ['TXT', '', /no text/],
    ['TXT', '"bad \\999"', /three digits/],
    ['HINFO', 'cpu os', /type must be one of/],
  ];
  it.each(rejects)('rejects %s %j', (type, text, message) => {
    expect(() => parseRecord(type, text)).toThrow(message);
    expect(() => parseRecord(type, text)).toThrow(new RegExp(`^invalid ${type.toUpperCase()} record`));
  });
});
