import { ownZonesAnswer } from './own-answer';

const txt = (subname: string, text: string) => ({ subname, type: 'TXT', ttl: 60, records: [`"${text}"`] });
const cname = (subname: string, target: string) => ({ subname, type: 'CNAME', ttl: 60, records: [`${target}.`] });
const NAME = '_account-dns-verify.victim.test';

describe('ownZonesAnswer: what this service answers from the claimant’s own zones', () => {
  it('sees the token at the name, through a wildcard, and through CNAMEs within and across the zones', () => {
    expect(ownZonesAnswer([{ name: 'victim.test', rrsets: [txt('_account-dns-verify', 'tok')] }], NAME, 'tok')).toBe(
      true,
    );
    expect(ownZonesAnswer([{ name: 'victim.test', rrsets: [txt('*', 'tok')] }], NAME, 'tok')).toBe(true);
    expect(
      ownZonesAnswer(
        [{ name: 'victim.test', rrsets: [cname('_account-dns-verify', 'holder.victim.test'), txt('holder', 'tok')] }],
        NAME,
        'tok',
      ),
    ).toBe(true);
    const across = [
      { name: 'victim.test', rrsets: [cname('_account-dns-verify', 'a.mine.test')] },
      { name: 'mine.test', rrsets: [cname('a', 'b.mine.test'), txt('b', 'tok')] },
    ];
    expect(ownZonesAnswer(across, NAME, 'tok')).toBe(true);
    // A token in a zone above: seen, unless a zone of the account in between answers the name (as the server would).
    const sub = '_account-dns-verify.sub.victim.test';
    const parent = { name: 'victim.test', rrsets: [txt('_account-dns-verify.sub', 'tok')] };
    expect(ownZonesAnswer([parent], sub, 'tok')).toBe(true);
    expect(ownZonesAnswer([parent, { name: 'sub.victim.test', rrsets: [] }], sub, 'tok')).toBe(false);
  });

  it('does not see other text, other names, or a CNAME leaving the account’s zones', () => {
    expect(ownZonesAnswer([{ name: 'victim.test', rrsets: [txt('_account-dns-verify', 'other')] }], NAME, 'tok')).toBe(
      false,
    );
    expect(ownZonesAnswer([{ name: 'victim.test', rrsets: [txt('elsewhere', 'tok')] }], NAME, 'tok')).toBe(false);
    expect(
      ownZonesAnswer(
        [{ name: 'victim.test', rrsets: [cname('_account-dns-verify', 'x.someone-else.test')] }],
        NAME,
        'tok',
      ),
    ).toBe(false);
    expect(ownZonesAnswer([], NAME, 'tok')).toBe(false);
  });
});
