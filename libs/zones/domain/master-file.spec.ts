import { AppError } from '../../shared/errors';
import { parseMasterFile } from './master-file';
import { formatMasterFile } from './master-file-writer';

const parse = (text: string) => parseMasterFile(text, { zone: 'example.com', defaultTtl: 3600 });

describe('BIND master file', () => {
  it('reads directives, blank owners, relative names, parentheses and quoted comments', () => {
    const rrsets = parse(`$ORIGIN example.com.
$TTL 1h
@   IN SOA ns1 hostmaster ( 1 ; serial
        7200 3600 1209600 300 )
@       NS  ns1.other.net.
www 300 IN A 192.0.2.1
        IN AAAA 2001:db8::1     ; same owner as the line above, TTL from $TTL
alias   CNAME www
@       MX 10 mail
txt     IN 120 TXT "v=spf1 -all; not a comment" "second"
_sip._tcp SRV 1 2 5060 sip.example.com.
`);
    expect(rrsets).toEqual([
      { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.1'] },
      { subname: 'www', type: 'AAAA', ttl: 3600, records: ['2001:db8::1'] },
      { subname: 'alias', type: 'CNAME', ttl: 3600, records: ['www.example.com.'] },
      { subname: '', type: 'MX', ttl: 3600, records: ['10 mail.example.com.'] },
      { subname: 'txt', type: 'TXT', ttl: 120, records: ['"v=spf1 -all; not a comment" "second"'] },
      { subname: '_sip._tcp', type: 'SRV', ttl: 3600, records: ['1 2 5060 sip.example.com.'] },
    ]);
  });

  it('refuses names outside the zone, other classes and $INCLUDE, naming the line', () => {
    const fails = (text: string, message: RegExp) => {
      let error: unknown;
      try {
        parse(text);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toMatch(message);
    };
    fails('www.other.org. 300 IN A 192.0.2.1', /line 1: www\.other\.org is outside/);
    fails('a 300 CH TXT "x"', /class CH/);
    fails('\n$INCLUDE other.zone', /line 2: \$INCLUDE/);
  });
});

describe('BIND master file export', () => {
  it('writes the SOA, apex NS and every record, and reads back to the same RRsets', () => {
    const rrsets = [
      { subname: 'www', type: 'A', ttl: 300, records: ['192.0.2.1', '192.0.2.2'] },
      { subname: '', type: 'MX', ttl: 3600, records: ['10 mail.example.com.'] },
      { subname: 'txt', type: 'TXT', ttl: 120, records: ['"v=spf1 -all; not a comment" "second \\"quoted\\""'] },
      { subname: '*.wild', type: 'CNAME', ttl: 60, records: ['www.example.com.'] },
      { subname: '_sip._tcp', type: 'SRV', ttl: 3600, records: ['1 2 5060 sip.example.com.'] },
      { subname: 'sub', type: 'NS', ttl: 86400, records: ['ns.sub.example.com.'] },
      { subname: '', type: 'CAA', ttl: 3600, records: ['0 issue "letsencrypt.org"'] },
    ];
    const text = formatMasterFile(
      { zone: 'example.com', nameservers: ['ns1.example.net', 'ns2.example.net'], serial: 1_700_000_000 },
      rrsets,
    );
    expect(text).toContain('$ORIGIN example.com.\n');
    expect(text).toContain('@ 3600 IN SOA ns1.example.net. hostmaster.example.com. 1700000000 3600 600 604800 60\n');
    expect(text).toContain('@ 3600 IN NS ns2.example.net.\n');
    expect(text).toContain('www 300 IN A 192.0.2.2\n');
    const byKey = (list: Array<{ subname: string; type: string }>) =>
      [...list].sort((a, b) => `${a.subname}|${a.type}`.localeCompare(`${b.subname}|${b.type}`));
    expect(byKey(parse(text))).toEqual(byKey(rrsets));
  });

  it('leaves out DNSSEC records', () => {
    const text = formatMasterFile({ zone: 'example.com', nameservers: ['ns1.example.net'], serial: 1 }, [
      { subname: '', type: 'DNSKEY', ttl: 3600, records: ['257 3 13 AAAA'] },
      { subname: 'a', type: 'A', ttl: 60, records: ['192.0.2.1'] },
    ]);
    expect(text).not.toContain('DNSKEY');
    expect(text).toContain('a 60 IN A 192.0.2.1');
  });
});
