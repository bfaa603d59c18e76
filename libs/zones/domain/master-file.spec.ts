import { AppError } from '../../shared/errors';
import { parseMasterFile } from './master-file';

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
