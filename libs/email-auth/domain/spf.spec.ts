import { checkSpf } from './settings';
import { publishedSpf, spfRecord } from './spf';

describe('SPF settings beyond include/ip4/ip6/all (issue 27, bug 3)', () => {
  it('reads a published record into the fields, the zone itself as @', () => {
    expect(publishedSpf('v=spf1 mx -all', 'ex.example')).toEqual({
      record: 'v=spf1 mx -all',
      settings: { include: [], ip4: [], ip6: [], all: '-all', a: [], mx: ['@'], exists: [], redirect: null },
      unsupported: [],
    });
    const p = publishedSpf(
      'v=spf1 a a:ex.example mx:mail.other.example ip4:192.0.2.0/24 include:_spf.x.example exists:%{i}.e.example ' +
        'ptr ~ip4:198.51.100.1 redirect=_spf.y.example',
      'ex.example',
    )!;
    expect(p.settings).toEqual({
      include: ['_spf.x.example'],
      ip4: ['192.0.2.0/24'],
      ip6: [],
      all: null,
      a: ['@', '@'],
      mx: ['mail.other.example'],
      exists: ['%{i}.e.example'],
      redirect: '_spf.y.example',
    });
    expect(p.unsupported).toEqual(['ptr', '~ip4:198.51.100.1']);
    expect(publishedSpf('not spf', 'ex.example')).toBeNull();
  });

  it('publishes what it read back, unchanged in meaning', () => {
    const read = publishedSpf('v=spf1 mx a:web.ex.example ip4:192.0.2.1 -all', 'ex.example')!;
    expect(spfRecord(checkSpf(read.settings))).toBe('v=spf1 a:web.ex.example mx ip4:192.0.2.1 -all');
    expect(spfRecord(checkSpf({ mx: ['@'], redirect: '_spf.y.example' }))).toBe('v=spf1 mx redirect=_spf.y.example');
  });

  it('keeps settings without the later fields exactly as before (stored events compare equal)', () => {
    expect(checkSpf({ include: ['_spf.x.example'], ip4: ['192.0.2.1'] })).toEqual({
      include: ['_spf.x.example'],
      ip4: ['192.0.2.1'],
      ip6: [],
      all: '~all',
    });
  });

  it('refuses all beside redirect, no all without redirect, and bad targets, naming the field', () => {
    expect(() => checkSpf({ all: '-all', redirect: '_spf.y.example' })).toThrow(
      /redirect: give either all or redirect/,
    );
    expect(() => checkSpf({ all: null })).toThrow(/^all: /);
    expect(() => checkSpf({ mx: ['not a host'] })).toThrow(/mx\[0\]/);
    expect(() => checkSpf({ exists: ['has space.example'] })).toThrow(/exists\[0\]/);
  });
});
